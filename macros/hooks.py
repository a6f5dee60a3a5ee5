"""MkDocs hooks (loaded by path from mkdocs.yml): build-time files that are not in docs/.

- Korean build: English pages with no Korean file are added from docs/en (the page gets a
  "not yet translated" notice from macros.i18n); a Korean page with no English page is refused.
- Both builds: a file of the docs folder reached through a symlink is refused (it could
  publish any file of the machine).
- Both builds: the Playground's JSON export for each model, and after the build a Markdown
  copy of every page with its macros rendered plus ``llms.txt``, for agents without JavaScript.
Nothing is ever written into docs/ or recipes/.
"""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from macros import i18n
from macros.database import cached_database
from macros.export import export_model

_rendered: dict[str, tuple[str, str]] = {}


def _lang(config) -> str:
    return config["extra"].get("recipes_lang") or config["theme"]["language"]


def on_files(files, config):
    lang = _lang(config)
    docs_dir = Path(config["docs_dir"])
    en_dir = docs_dir.parent / "en"
    refused = []
    for f in files:
        if not f.abs_src_path or not Path(f.abs_src_path).is_relative_to(docs_dir):
            continue  # added by a plugin, not a file of the docs folder
        path = Path(f.abs_src_path)
        name = i18n.display(path, docs_dir.parent)
        problem = i18n.symlink_problem(path, docs_dir)
        if problem:
            refused.append(f"{name}: {problem}")
        elif lang != "en" and f.is_documentation_page() and not (en_dir / f.src_uri).is_file():
            refused.append(f"{name}: has no English source page "
                           f"{i18n.display(en_dir / f.src_uri, docs_dir.parent)}")
    if refused:
        raise PluginError("\n".join(refused))
    i18n.FALLBACK_PAGES.clear()  # one process may build several sites (tests, benchmark)
    if lang != "en":
        present = {f.src_uri for f in files}
        for path in sorted(en_dir.rglob("*.md")):
            uri = path.relative_to(en_dir).as_posix()
            if uri not in present:
                files.append(File.generated(config, uri, abs_src_path=str(path)))
                i18n.FALLBACK_PAGES.add(uri)
    db = cached_database()
    for model_id in db.models:
        data = export_model(db, model_id, lang)
        content = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        files.append(File.generated(config, f"assets/recipes/{model_id}.{lang}.json",
                                    content=content))
    _rendered.clear()
    return files


def on_page_markdown(markdown, page, config, files):
    _rendered[page.file.src_uri] = (page.title or page.file.src_uri, markdown)
    return markdown


def on_template_context(context, template_name, config):
    """The 404 page is served at any missing path, so MkDocs roots its links at the server's
    root: right for the English site there, wrong for a language served from its own folder,
    whose 404 page would send readers to English pages. Root that page at its folder."""
    lang = _lang(config)
    if template_name == "404.html" and lang != "en" and not config.get("site_url"):
        context["base_url"] = f"/{lang}/"
    return context


def on_post_build(config):
    site = Path(config["site_dir"])
    lang = _lang(config)
    lines = [f"# {config['site_name']}", "",
             f"> {config.get('site_description') or ''}", "",
             "Every page is also available as Markdown with every command rendered; each model's",
             "recipe database is available as JSON (cells, overlays, rules, text).", ""]
    pages = sorted(_rendered.items(), key=lambda kv: (not kv[0].startswith("models/"), kv[0]))
    sections = {"models/": "## Recipes", "": "## Guides and other pages"}
    current = None
    for uri, (title, markdown) in pages:
        target = uri[:-3] + ".md" if uri.endswith("index.md") else uri[:-3] + "/index.md"
        out = site / target
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(markdown, encoding="utf-8")
        section = "models/" if uri.startswith("models/") else ""
        if section != current:
            lines += ["", sections[section], ""] if current is not None else [sections[section], ""]
            current = section
        lines.append(f"- [{title}]({target})")
    lines += ["", "## Data", ""]
    lines += [f"- [{model_id} recipe database ({lang})](assets/recipes/{model_id}.{lang}.json)"
              for model_id in cached_database().models]
    for alt in config["extra"].get("alternate") or []:
        if alt.get("lang") != lang:
            lines.append(f"- [The same site in {alt.get('name')}]({alt.get('link') or './'}llms.txt)")
    (site / "llms.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
