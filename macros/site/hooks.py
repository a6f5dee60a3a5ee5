"""The MkDocs hooks the site keeps (the staged configs load this file by path; Zensical has no
hooks, and ``macros.site.stage`` does the same for its output): the 404 page of a language served
from its own folder, and the two events around each page's conversion that let
``macros.site.published`` judge the links and attribute lists MkDocs itself converted. Everything
else a build adds (notices, fallbacks, exports, Markdown copies, llms.txt) is the stage's, so
both engines get it. Must not write anything, and must not raise: the published findings are
reported by the build after the engine ran.
"""

from __future__ import annotations

from macros.site import published


def on_page_markdown(markdown, page, config, files):
    published.begin(config["docs_dir"], page.file.src_uri)
    return markdown


def on_page_content(html, page, config, files):
    published.end(page.markdown)
    return html


def on_template_context(context, template_name, config):
    """The 404 page is served at any missing path, so MkDocs roots its links at the server's
    root: right for the English site there, wrong for a language served from its own folder,
    whose 404 page would send readers to English pages. Root that page at its folder."""
    lang = config["extra"].get("recipes_lang") or config["theme"]["language"]
    if template_name == "404.html" and lang != "en" and not config.get("site_url"):
        context["base_url"] = f"/{lang}/"
    return context
