"""The project's own build stage: what both site engines (MkDocs + Material, Zensical) read and
what is added to their output, so that neither depends on an engine's plugin or hook system.

Owns the staging folder (``<work>/stage``): one config per language, derived from mkdocs.yml /
mkdocs.ko.yml (docs and site folders inside the stage, the theme overrides by absolute path, no
macros plugin); each language's pages with their macros already rendered by the recipe sandbox
(``site.PageTemplates``), the translation notices added after rendering, English pages standing
in for missing translations, the Playground's JSON export per model; and after the engine ran,
the post-build files: a Markdown copy of every page and ``llms.txt``. Refuses what the site may
not publish: a symlink to a folder or out of docs/ or recipes/ (before anything walks
them), a file reached through a symlink, a translated page with no English source, a root
site's file in the folder another language's site takes; and the links and attribute lists a
rendered page would publish against the rules (converting the page itself, or, with
``engine_checks``, judging MkDocs' own conversion through ``macros.site.published``).
Must not write anywhere but the stage folder and the site folder it is given; never into docs/
or recipes/.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import yaml
from mkdocs.exceptions import ConfigurationError

from macros.i18n import notices
from macros.i18n import pages as i18n
from macros.site import published
from macros.site.bundle import BundleFailed, bundle_assets, purge_theme_css
from macros.engine.errors import RecipeError

CONFIGS = ("mkdocs.yml", "mkdocs.ko.yml")  # the site's languages; the first is the root site
# what MkDocs also converts as pages (mkdocs.utils.markdown_extensions), besides .md
_OTHER_MARKDOWN = (".markdown", ".mdown", ".mkdn", ".mkd")
_HEADING = re.compile(r"^#\s+(.+?)(?:\s+\{[^}]*\})?\s*#*\s*$", re.M)


class StageFailed(Exception):
    """What the pages or the project break; the message names files and lines."""


@dataclass
class Language:
    lang: str
    config_name: str  # the source config, for messages
    docs: Path  # the source pages (docs/<lang>)
    sub: str  # the site's folder under the output ("" for the root site)
    config: dict  # the staged config
    titles: dict[str, str]  # page uri -> its title in the nav
    # uri -> (its first heading, the length of its front matter): what the Markdown copy and
    # llms.txt need of a staged page, whose text is read back from its file (a catalogue's
    # pages would otherwise stay in memory through the engine's run)
    pages: dict[str, tuple[str | None, int]] = field(default_factory=dict)
    fallbacks: set[str] = field(default_factory=set)  # uris staged from the English folder


def _load_config(path: Path) -> dict:
    from mkdocs.utils.yaml import get_yaml_loader, yaml_load  # MkDocs' own reading of INHERIT

    with open(path, "rb") as f:  # a named file: INHERIT is resolved beside it
        return yaml_load(f, get_yaml_loader())


def _nav_titles(nav, out: dict[str, str]) -> dict[str, str]:
    for item in nav or []:
        if isinstance(item, dict):
            for title, value in item.items():
                if isinstance(value, str):
                    out[value] = title
                else:
                    _nav_titles(value, out)
    return out


def url_of(uri: str) -> str:
    """The page's URL as MkDocs and Zensical give it with ``use_directory_urls``."""
    stem = uri[:-3]
    if stem == "index":
        return ""
    return stem[:-len("index")] if stem.endswith("/index") else stem + "/"


def copy_target(uri: str) -> str:
    """Where a page's Markdown copy goes in the site (beside its index.html)."""
    return uri if uri.endswith("index.md") else uri[:-3] + "/index.md"


def _page(uri: str, source: Path) -> SimpleNamespace:
    """The page object the templates read (what MkDocs would hand its plugins)."""
    return SimpleNamespace(url=url_of(uri),
                           file=SimpleNamespace(src_uri=uri, abs_src_path=str(source)))


def _read_source(path: Path, name: str) -> str:
    """A page as the engines read it: UTF-8 without BOM, newlines as \\n."""
    text = i18n.decode(i18n.read_bytes(path, name), name).removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def link_problems(trees: list[tuple[Path, str]]) -> list[str]:
    """Every symlink in the ``trees`` ((folder, name in messages)) that leads to a folder or
    out of its tree, named with where it leads; the trees themselves included. Walks without
    following any link. A link to a file inside its tree is left to the rules of whoever reads
    it (the stage refuses a page reached through one; the database reports a loop or a
    missing file)."""
    found = []
    for tree, name in trees:
        real_tree = os.path.realpath(tree)
        links = [Path(tree)] if os.path.islink(tree) else []
        if not links:
            for folder, dirs, files in os.walk(tree):
                dirs.sort()
                links += [Path(folder, n) for n in sorted(dirs + files)
                          if os.path.islink(os.path.join(folder, n))]
        for link in links:
            shown = name if link == Path(tree) else \
                f"{name}/{link.relative_to(tree).as_posix()}"
            try:
                written = os.readlink(link)
            except OSError:
                continue  # gone since the walk listed it
            real = os.path.realpath(link)
            to = written if written == real else f"{written} (that is, {real})"
            folder = os.path.isdir(link)
            outside = link == Path(tree) or \
                os.path.commonpath([real, real_tree]) != real_tree
            if not (folder or outside):
                continue
            what = "a folder" if folder else "a file"
            where = "" if not outside else f" outside {name}/" if link != Path(tree) else \
                " elsewhere"
            found.append(f"{shown}: is a symbolic link to {what}{where} ({to}); the site is "
                         f"made only from what is inside {name}/ itself, following no link to "
                         "a folder or out of it: put the files themselves there instead")
    return found


class Stage:
    """The staged input of one build (or one live preview) of some of the site's languages."""

    def __init__(self, root: Path, work: Path, langs: tuple[str, ...] | None = None,
                 engine_checks: bool = False):
        """``engine_checks``: the engine is MkDocs in this process, and judges the links and
        attribute lists of its own conversion (``macros.site.published``; ``check_published`` after
        it ran) instead of the stage converting each rendered page a second time."""
        from macros.site import lexer

        try:
            lexer.require()  # the shell blocks' colouring, before any page is read
        except lexer.LexerMissing as exc:
            raise StageFailed(str(exc)) from None
        self.root, self.work = Path(root).resolve(), Path(work)
        self.engine_checks = engine_checks
        self.dir = self.work / "stage"
        self.site = self.dir / "site"  # inside the stage: Zensical builds only below its config
        base = None
        self.languages: list[Language] = []
        every = []
        docs_dirs = []
        self.subs: set[str] = set()  # the folders other languages take in the root site
        for name in CONFIGS:
            path = self.root / name
            try:
                config = _load_config(path)
            except (OSError, ConfigurationError) as exc:
                raise StageFailed(f"{name}: cannot be read: {exc}") from None
            lang = (config.get("extra") or {}).get("recipes_lang") or config["theme"]["language"]
            base = base or config
            every.append(lang)
            sub = Path(config["site_dir"]).relative_to(base["site_dir"]).as_posix()
            sub = "" if sub == "." else sub
            if sub:
                self.subs.add(sub.split("/")[0])
            docs_dirs.append(self.root / config["docs_dir"])
            if langs is not None and lang not in langs:
                continue
            docs = (self.root / config["docs_dir"]).resolve()
            self.languages.append(Language(lang, name, docs, sub, self._staged(config, lang, sub),
                                           _nav_titles(config.get("nav"), {})))
        unknown = set(langs or ()) - {lng.lang for lng in self.languages}
        if unknown:
            raise StageFailed(f"no site language {', '.join(sorted(unknown))} (languages: "
                              f"{', '.join(every)})")
        self.en_docs = (self.root / base["docs_dir"]).resolve()
        self.trees = self._trees(docs_dirs)
        self.check_links()

    def _trees(self, docs_dirs: list[Path]) -> list[tuple[Path, str]]:
        """The folders the site is made from, each as (path, its name in messages): docs/ (or
        each language's docs folder outside it) and the recipes folder the database loads."""
        from macros.engine.database import RECIPES

        docs = self.root / "docs"
        trees = [(docs, "docs")] if docs.is_dir() else []
        for path in docs_dirs:
            if not any(path.is_relative_to(tree) for tree, _ in trees):
                trees.append((path, i18n.display(path, self.root / "docs")))
        recipes = Path(os.environ.get("RECIPES_ROOT") or RECIPES)
        trees.append((recipes, "recipes" if recipes == RECIPES else str(recipes)))
        return trees

    def check_links(self) -> None:
        """Refuse, before anything walks them, the symlinks under docs/ and recipes/ that lead
        to a folder or out of their tree: a link to / would have every walk (the stage's, the
        preview's watcher) go through the whole machine, and publish what it found."""
        found = link_problems(self.trees)
        if found:
            raise StageFailed("\n".join(found))

    def _staged(self, config: dict, lang: str, sub: str) -> dict:
        staged = dict(config)
        staged["docs_dir"] = f"docs/{lang}"
        staged["site_dir"] = "site/" + sub if sub else "site"
        theme = dict(staged.get("theme") or {})
        if theme.get("custom_dir"):
            theme["custom_dir"] = str((self.root / theme["custom_dir"]).resolve())
        staged["theme"] = theme
        # the pages arrive rendered: a macros plugin would render them a second time
        staged["plugins"] = [p for p in staged.get("plugins") or []
                             if p != "macros" and not (isinstance(p, dict) and "macros" in p)]
        # MkDocs only (Zensical ignores hooks): the 404 page of a language in its own folder,
        # and the published check's events
        staged["hooks"] = [str(Path(__file__).with_name("hooks.py"))]
        if self.engine_checks:
            staged["markdown_extensions"] = [*(staged.get("markdown_extensions") or []),
                                             published.NAME]
        return staged

    def language(self, lang: str) -> Language:
        return next(lng for lng in self.languages if lng.lang == lang)

    def config_path(self, language: Language) -> Path:
        return self.dir / f"mkdocs.{language.lang}.yml"

    def site_dir(self, language: Language) -> Path:
        return self.site / language.sub if language.sub else self.site

    # -- staging ---------------------------------------------------------------------------

    def write_config(self, language: Language) -> None:
        """The language's staged config, and its (empty) docs folder if there is none yet."""
        (self.dir / language.config["docs_dir"]).mkdir(parents=True, exist_ok=True)
        self.config_path(language).write_text(
            yaml.safe_dump(language.config, allow_unicode=True, sort_keys=False), encoding="utf-8")

    def _templates(self, language: Language):
        """The language's sources (``_sources``) and the page templates that render and check
        them, with the language's English stand-ins noted for the notices and the contract."""
        from macros.engine.database import cached_database
        from macros.site.pages import PageTemplates, Site

        sources = self._sources(language)
        try:
            db = cached_database()
        except RecipeError as exc:
            raise StageFailed("\n".join(str(p) for p in exc.problems)) from None
        return sources, PageTemplates(Site(db, language.lang), self.root, language.docs,
                                      language.fallbacks)

    def stage(self, language: Language, only: set[str] | None = None) -> None:
        """Stage a language's pages (all, or only the page uris in ``only``) and its exports."""
        from macros.site.export import export_model, later_name, split_export

        staged_docs = self.dir / language.config["docs_dir"]
        if only is None:
            shutil.rmtree(staged_docs, ignore_errors=True)
            published.forget(staged_docs)
            language.pages.clear()  # a page removed since the last staging is no page now
        self.write_config(language)
        sources, templates = self._templates(language)
        db = templates.site.db
        problems: list[str] = []
        for uri, source in sources.items():
            if only is not None and uri not in only:
                continue
            target = staged_docs / uri
            target.parent.mkdir(parents=True, exist_ok=True)
            if not uri.endswith(".md"):
                shutil.copyfile(source, target)
                continue
            try:
                head, body = self._render(templates, language, uri, source, staged_docs)
            except StageFailed as exc:
                problems.append(str(exc))
                continue
            m = _HEADING.search(body)
            language.pages[uri] = (m.group(1) if m else None, len(head))
            target.write_text(head + body, encoding="utf-8")
        templates.page_done()  # the engine runs next: no model's tables are needed there
        if only is None and not problems:  # (a page that failed may be the one publishing)
            problems += unpublished_results(db, templates.site.published, language.lang,
                                            self.trees[-1][1])  # (recipes/: the last tree)
        if problems:
            raise StageFailed("\n".join(problems))
        if only is None:
            for model_id in db.models:
                # in two files: what mounts the Playground, and what it fetches on first need
                name = later_name(model_id, language.lang)
                parts = split_export(export_model(db, model_id, language.lang), name)
                out = staged_docs / "assets" / "recipes" / f"{model_id}.{language.lang}.json"
                out.parent.mkdir(parents=True, exist_ok=True)
                for part, path in zip(parts, (out, out.with_name(name))):
                    path.write_text(json.dumps(part, ensure_ascii=False, separators=(",", ":")),
                                    encoding="utf-8")

    def check(self, language: Language) -> None:
        """Find quickly whether a language's sources break a rule before anything is
        rendered: the files ``stage`` would refuse (``_sources``) and each page's contract and
        template problems (``PageTemplates.source_problems``). When they do, the language is
        staged to report them, so the failure reads exactly as staging it would (with what
        rendering those pages finds, too). The build checks every language before any engine
        runs (``macros.site.build``). The contract's answers are kept (``macros.i18n.contract``),
        so staging after a check does not check twice."""
        sources, templates = self._templates(language)
        problems: list[str] = []
        for uri, source in sources.items():
            if not uri.endswith(".md"):
                continue
            name = i18n.display(source, language.docs.parent)
            page = _page(uri, source)
            try:
                _, body = i18n.split_front_matter(_read_source(source, name))
            except RecipeError as exc:
                problems += [str(p) for p in exc.problems]
                continue
            problems += templates.source_problems(page, body)
        if problems:
            self.stage(language)  # raises StageFailed: every page's problems, as staging says
            raise StageFailed("\n".join(problems))  # (not reached: the same checks ran there)

    def _sources(self, language: Language) -> dict[str, Path]:
        """Every file the language publishes (uri -> source), English stand-ins included."""
        found, refused = {}, []
        # a linked folder is refused before (check_links): never entered here either
        for folder, dirs, files in os.walk(language.docs):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.startswith("."):
                    continue
                path = Path(folder) / name
                uri = path.relative_to(language.docs).as_posix()
                shown = i18n.display(path, language.docs.parent)
                problem = i18n.symlink_problem(path, language.docs)
                if problem:
                    refused.append(f"{shown}: {problem}")
                elif path.suffix.lower() in _OTHER_MARKDOWN:
                    refused.append(f"{shown}: MkDocs reads a {path.suffix} file as a page, "
                                   "but the site's pages are .md files (their macros, notices "
                                   "and checks run only on those); rename it to .md")
                elif not language.sub and uri.split("/")[0] in self.subs:
                    refused.append(f"{shown}: the folder {uri.split('/')[0]}/ of this site is "
                                   "where another language's site goes; move the file")
                elif language.docs != self.en_docs and uri.endswith(".md") \
                        and not (self.en_docs / uri).is_file():
                    refused.append(f"{shown}: has no English source page "
                                   f"{i18n.display(self.en_docs / uri, language.docs.parent)}")
                found[uri] = path
        if refused:
            raise StageFailed("\n".join(refused))
        language.fallbacks = set()
        if language.docs != self.en_docs:
            for path in sorted(self.en_docs.rglob("*.md")):
                uri = path.relative_to(self.en_docs).as_posix()
                if uri not in found:
                    found[uri] = path
                    language.fallbacks.add(uri)
        return dict(sorted(found.items()))

    def _render(self, templates, language: Language, uri: str, source: Path,
                staged_docs: Path) -> tuple[str, str]:
        """A page's front matter and its body with macros rendered and its notice added."""
        from mkdocs.exceptions import PluginError

        name = i18n.display(source, language.docs.parent)
        try:
            head, body = i18n.split_front_matter(_read_source(source, name))
            page = _page(uri, source)
            templates.check_source(page)
            body = templates.render(SimpleNamespace(page=page), body)
            templates.check_rendered_html(page, body)
            if not self.engine_checks:
                templates.check_rendered(page, body)
            elif templates.source is not None:
                published.expect(staged_docs, uri, templates.page_name(page), source)
            if language.lang != "en":
                note = notices.notice(uri, page.url, language.docs.parent, language.lang,
                                      templates.site.t, fallbacks=language.fallbacks)
                body = notices.with_notice(body, note)
        except PluginError as exc:
            raise StageFailed(str(exc)) from None
        except RecipeError as exc:
            raise StageFailed("\n".join(str(p) for p in exc.problems)) from None
        finally:
            templates.page_done(uri)
        # a fallback page is English text in the Korean site: its front matter stays English's
        return head, body

    # -- after the engine ------------------------------------------------------------------

    def check_published(self, language: Language) -> None:
        """With ``engine_checks``: what the engine's conversion of the language's pages
        publishes against the link and attribute rules (each line names its page and line)."""
        if self.engine_checks:
            staged_docs = self.dir / language.config["docs_dir"]
            found = published.problems(staged_docs)
            published.forget(staged_docs)
            if found:
                raise StageFailed("\n".join(found))

    def title(self, language: Language, uri: str) -> str:
        if uri in language.titles:
            return language.titles[uri]
        return (language.pages.get(uri) or (None,))[0] or uri

    def finish(self, language: Language, engine: str, purge: bool = True) -> None:
        """The post-build files of a language's site: Markdown copies and llms.txt; the
        project's scripts and styles bundled and minified, and the theme's style sheets
        without the rules nothing on the site can match (``macros.site.bundle``); the code
        blocks' blank runs out of their uncoloured spans, and the pages without the checker's
        directives and the templates' indentation between tags (``_slim_page``)."""
        site = self.site_dir(language)
        custom = (language.config.get("theme") or {}).get("custom_dir")
        try:
            if custom:
                bundle_assets(Path(custom) / "assets" / "recipes", site / "assets" / "recipes")
        except BundleFailed as exc:
            raise StageFailed(str(exc)) from None
        others = () if language.sub else tuple(sorted(self.subs))  # their own sites
        for page in site.rglob("*.html"):
            if page.relative_to(site).parts[0] not in others:
                _slim_page(page)
        try:
            if purge:  # not in the live preview: a rebuild keeps the copies it purged before
                purge_theme_css(site, others, language.config)
        except BundleFailed as exc:
            raise StageFailed(str(exc)) from None
        config = language.config
        lines = [f"# {config['site_name']}", "",
                 f"> {config.get('site_description') or ''}", "",
                 "Every page is also available as Markdown with every command rendered; each "
                 "model's", "recipe database is available as JSON (cells, overlays, rules, text).",
                 ""]
        pages = sorted(language.pages, key=lambda uri: (not uri.startswith("models/"), uri))
        sections = {"models/": "## Recipes", "": "## Guides and other pages"}
        current = None
        staged = self.dir / config["docs_dir"]
        for uri in pages:
            target = copy_target(uri)
            out = site / target
            out.parent.mkdir(parents=True, exist_ok=True)
            text = (staged / uri).read_text(encoding="utf-8")
            out.write_text(text[language.pages[uri][1]:], encoding="utf-8")
            section = "models/" if uri.startswith("models/") else ""
            if section != current:
                lines += ["", sections[section], ""] if current is not None else \
                    [sections[section], ""]
                current = section
            lines.append(f"- [{self.title(language, uri)}]({target})")
        lines += ["", "## Data", ""]
        exports = sorted((site / "assets" / "recipes").glob(f"*.{language.lang}.json"))
        from macros.site.export import later_name

        for p in exports:  # each in the two parts the Playground reads (export.split_export)
            model_id = p.name.removesuffix(f".{language.lang}.json")
            later = later_name(model_id, language.lang)
            lines.append(f"- [{model_id} recipe database ({language.lang})](assets/recipes/"
                         f"{p.name}), with the other releases' flag catalogs and what the "
                         f"deployment files read in [{later}](assets/recipes/{later})")
        for alt in (config.get("extra") or {}).get("alternate") or []:
            if alt.get("lang") != language.lang:
                lines.append(f"- [The same site in {alt.get('name')}]"
                             f"({alt.get('link') or './'}llms.txt)")
        if not language.sub:  # the root language's site holds the JSON API (site/api.py)
            from macros.engine.database import cached_database
            from macros.site.api import write_api

            lines += write_api(cached_database(), site)
        (site / "llms.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        if engine == "zensical" and language.sub:
            _root_404(site / "404.html", language.sub)
        if engine == "zensical":
            _spaced_search(site / "search.json")


# Pygments' lexers (Python's, YAML's, TOML's; the shell blocks' own, macros/site/lexer.py, marks
# no blanks) wrap every run of blanks in a code block in <span class="w">, which no style
# colours: gone without a visible change.
_BLANK_SPAN = re.compile(r'<span class="w">([ \t\n]*)</span>')
# The check and bench directives above a page's shell blocks (pages._directive, hand-written
# ones too) are for the checker and the docs' tests, which read the Markdown (the sources and
# the site's Markdown copies, which keep them); in the HTML a reader downloads they are dead
# weight (about 1 KB gzip on a model page). A comment in a code block is text (&lt;!--).
_DIRECTIVE = re.compile(r"<!--\s*(?:check|bench):[^>]*?-->\n?")
# The templates' indentation between two tags: a line end alone renders the same (one blank,
# collapsed); in <pre> (a code block), <textarea> and <script> every blank stays as it is.
_KEPT = re.compile(r"(<(pre|textarea|script)\b.*?</\2>)", re.S)
_INDENT = re.compile(r">[ \t]*\n\s*<")


def unpublished_results(db, published: set[str], lang: str, recipes: str) -> list[str]:
    """A model's ``benchmarks.yaml`` that no page of the language renders with the
    ``benchmarks`` macro: its results would be left off the site with no word. One line each,
    naming the file (in ``recipes``, the recipes folder as messages name it: ``Stage._trees``)
    and the page that would publish them."""
    return [f"{recipes}/{model_id}/benchmarks.yaml: no page of the {lang} site publishes these "
            f"results: write docs/{lang}/models/{model_id}/benchmarks.md with "
            f"{{{{ benchmarks(\"{model_id}\") }}}} and give it a nav line (the guide's "
            f"\"The benchmarks page\")"
            for model_id in db.models
            if db.model(model_id).benchmarks is not None and model_id not in published]


def _slim_page(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    parts = _KEPT.split(_DIRECTIVE.sub("", _BLANK_SPAN.sub(r"\1", text)))
    # split gives [between, kept block, its tag name, between, …]
    slim = "".join(_INDENT.sub(">\n<", part) if i % 3 == 0 else part
                   for i, part in enumerate(parts) if i % 3 != 2)
    if slim != text:
        page.write_text(slim, encoding="utf-8")


_ROOTED = re.compile(r'(\b(?:href|src)=")/(?!/)(?![^"]*"[^>]*class="md-select__link")')


def _root_404(page: Path, sub: str) -> None:
    """Zensical roots a 404 page's links at the server's root and has no hook to change that:
    for a language served from its own folder they would lead to the root language's pages.
    The language selector's links already name each language's home (overrides/partials)."""
    if page.is_file():
        text = page.read_text(encoding="utf-8")
        page.write_text(_ROOTED.sub(rf"\g<1>/{sub}/", text), encoding="utf-8")


# Languages written with spaces between words, by the script of their words. Zensical's search
# worker runs every word of a Chinese, Japanese or Korean site (its ``lang``) through
# Intl.Segmenter; for these the segmenter only adds a break where the script changes
# ("B200에서" → "B200", "에서"), at a cost that grows with the index (each time the search
# opens, it builds the index anew). The separator says the same for the price of a regex.
SPACED = {"ko": "Hangul"}


def _spaced_search(index: Path) -> None:
    """Zensical's search index for a language of ``SPACED``: no word segmentation, and a break
    in the separator wherever that language's script begins or ends (the same words, the same
    results, the index built several times faster)."""
    if not index.is_file():
        return
    data = json.loads(index.read_text(encoding="utf-8"))
    config = data.get("config") or {}
    langs = config.get("lang") or []
    scripts = {code: SPACED.get(re.split(r"[-_]", str(code).lower())[0]) for code in langs}
    if not any(scripts.values()) or not config.get("separator"):
        return
    config["lang"] = [code for code in langs if not scripts[code]]
    config["separator"] += "".join(f"|(?<=\\p{{Script={x}}})(?=\\P{{Script={x}}})"
                                   f"|(?<=\\P{{Script={x}}})(?=\\p{{Script={x}}})"
                                   for x in sorted({x for x in scripts.values() if x}))
    index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                     encoding="utf-8")
