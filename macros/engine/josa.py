"""Korean particles (조사) after a value the text does not know in advance: a flag, a number,
a link's words. Which form a particle takes depends on whether the word before it ends in a
final consonant (받침): `--tp-size 8`을 (팔), `--attn-dp-size 1`을 (일), 포트 30000으로 (만),
`--enable-dp-attention`은 (…션), `--moe-runner-backend`를 (…드), and 으로/로 also on whether
that consonant is ㄹ (`--dp-size 8`로).

``attach`` is the one place that decides; ``db.t`` applies it to every particle a Korean text
writes right after a ``{field}``, and ``recipes i18n-check`` to every particle a Korean page
writes right after inline code or a link (playground/render.js mirrors it for the
Playground). Latin words are read as Korean readers say them: a word ending in l, m, n or ng
ends in a final consonant (…엘, …엠, …엔, …ㅇ); any other letter does not (…드, …크, …서).
"""

from __future__ import annotations

import re

# (after a final consonant, after a vowel): longest first, so 이에요 wins over 이
PAIRS = (("이에요", "예요"), ("이었어요", "였어요"), ("으로", "로"), ("이나", "나"),
         ("이라", "라"), ("이고", "고"), ("이면", "면"), ("을", "를"), ("은", "는"), ("과", "와"),
         ("이", "가"))
_FORMS = sorted({f for pair in PAIRS for f in pair}, key=len, reverse=True)
# a particle, maybe followed by 는/도/만/의/부터 (으로는, 과도), then no more Hangul
PARTICLE = re.compile("(" + "|".join(_FORMS) + ")(?=(?:는|도|만|의|부터)?(?:[^가-힣]|$))")
# how each digit is read, by its last sound: 0 영 1 일 2 이 3 삼 4 사 5 오 6 육 7 칠 8 팔 9 구;
# a number ending in zeros by its unit: 10 십, 100 백, 1000 천, 10000 만
_DIGIT = {"0": "ㅇ", "1": "ㄹ", "2": "", "3": "ㅁ", "4": "", "5": "", "6": "ㄱ", "7": "ㄹ",
          "8": "ㄹ", "9": ""}
_UNIT = {1: "ㅂ", 2: "ㄱ", 3: "ㄴ", 4: "ㄴ"}
_CLOSING = "`'\"*_ ]}»”’.,:;!?"


def final_sound(word: str) -> str | None:
    """The final consonant the word ends in ('' for none, 'ㄹ' for ㄹ, else another jamo), or
    None when nothing in it can be read (no letter, digit or syllable)."""
    text = word.rstrip(_CLOSING)
    while text.endswith(")") and "(" in text:  # 서버(server)를: the word before the brackets
        text = text[:text.rindex("(")].rstrip(_CLOSING)
    if not text:
        return None
    c = text[-1]
    if "가" <= c <= "힣":
        jong = (ord(c) - 0xAC00) % 28
        return "" if jong == 0 else ("ㄹ" if jong == 8 else "ㄴ")
    if c.isdigit():
        digits = re.search(r"[0-9]+$", text).group(0)
        zeros = len(digits) - len(digits.rstrip("0"))
        decimal = text[:-len(digits)].endswith(".")  # 0.90: 영 점 구 영, digit by digit
        if zeros and digits.strip("0") and not decimal:
            return _UNIT.get(zeros, "ㄴ")  # 십, 백, 천, 만; 십만 and above end in 만
        return _DIGIT[c]
    if c == "%":
        return ""  # 퍼센트
    if c.isascii() and c.isalpha():
        return _latin(re.search(r"[A-Za-z]+$", text).group(0))
    return None


# letters read by name in an acronym (TP, MLA, KV, HBM): 엘, 엠, 엔, 알 end in a consonant
_LETTER = {"l": "ㄹ", "m": "ㅁ", "n": "ㄴ", "r": "ㄹ"}
_VOWELS = "aeiouy"
_STOP = {"k": "ㄱ", "c": "ㄱ", "p": "ㅂ", "b": "ㅂ", "t": "ㅅ"}
_SAID = {"ok": "", "check": ""}  # 오케이, 체크: not as their letters suggest


def _latin(word: str) -> str:
    """The final sound of a Latin word as Korean writes it: an acronym by its letters' names,
    a word by its usual transcription (table 테이블, name 네임, type 타입, spec 스펙, set 셋,
    deep 딥, but check 체크, log 로그, test 테스트, mode 모드, parser 파서)."""
    caps = re.search(r"[A-Z]{2,}$", word)  # TP, MLA, vLLM, DeepEP: read letter by letter
    if caps and (len(word) <= 3 or caps.start() > 0) \
            or not any(v in word.lower() for v in _VOWELS):
        return _LETTER.get(word[-1].lower(), "")
    w = word.lower()
    if w in _SAID:
        return _SAID[w]
    if w.endswith("ng"):
        return "ㅇ"
    if len(w) > 2 and w.endswith("e") and w[-2] not in _VOWELS:
        if w[-2] == "l" and w[-3] not in _VOWELS:
            return "ㄹ"  # table, title, eagle
        return {"m": "ㅁ", "n": "ㄴ", "p": "ㅂ", "l": "ㄹ"}.get(w[-2], "")  # name, line, type
    last = w[-1]
    if last in _LETTER and last != "r":
        return _LETTER[last]
    if last == "k" and w.endswith("ck"):
        w, last = w[:-1], "c"
    if last in _STOP and len(w) > 1 and w[-2] in _VOWELS:
        if last == "t" and len(w) > 2 and w[-3] in _VOWELS:
            return ""  # wait 웨이트, boot 부트
        return _STOP[last]  # spec 스펙, set 셋, back 백, deep 딥
    return ""


def form(word: str, particle: str) -> str:
    """``particle`` (either of its forms) in the form that follows ``word``; unchanged when
    ``particle`` is no known particle or ``word`` cannot be read."""
    pair = next((p for p in PAIRS if particle in p), None)
    sound = final_sound(word)
    if pair is None or sound is None:
        return particle
    if pair[0] == "으로":
        return pair[1] if sound in ("", "ㄹ") else pair[0]
    return pair[0] if sound else pair[1]


def attach(word: str, rest: str) -> str:
    """``word`` followed by ``rest``, with the particle ``rest`` starts with (if any) put in the
    form that follows ``word``."""
    m = PARTICLE.match(rest)
    if not m:
        return word + rest
    written = m.group(0)
    return word + form(word, written) + rest[len(written):]
