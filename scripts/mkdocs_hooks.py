"""MkDocs hooks of the documentation site (mkdocs.yml: `hooks: [scripts/mkdocs_hooks.py]`).

The Markdown files in docs/ are read in two places: on GitHub, where a link such as
`../../methods/baumgarte.cpp` or `../python/cmbench/schemas/run.schema.json` opens the file in
the repository, and on this site, built from docs/ alone, where such a link has no target (and
MkDocs 1.4 reports it, which fails `mkdocs build --strict`). These hooks keep the Markdown as
GitHub wants it and rewrite, in the site only, every link whose target lies outside docs/:

- an image outside docs/ is copied into the site under `repository/<path>` and shown from there;
- a link to any other file or folder outside docs/ becomes its repository path as code,
  `path/in/the/repository` (after the link text when the text is something else), or, when
  mkdocs.yml sets `repo_url`, a link to that path in the repository's web view;
- a link outside docs/ to something that does not exist in the repository is an error (a warning,
  which --strict turns into a failed build), as a missing page inside docs/ is for MkDocs itself.

After the build, every `#fragment` of a link between the site's pages is checked against the ids
of the page it points to (MkDocs 1.4 checks only that the page exists): a heading renamed without
its links fails the strict build too. Headings get GitHub's ids (mkdocs.yml sets the toc slugify
to pymdownx's GitHub-compatible one), so the same fragments work on GitHub and here.

on_files also adds the C++ API reference that doxygen writes to build/doxygen/html (Doxyfile; the
environment variable CMB_DOXYGEN_HTML names another folder, as scripts/docs.sh OUT sets it) as
the site's api/cpp/ pages, so docs/api/cpp.md can link to it and MkDocs checks that link; without
it (doxygen not run: scripts/docs.sh runs it first) that link fails the strict build.
"""
import glob
import html.parser
import logging
import os
import posixpath
import re

from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.cmbench")

REPO_PREFIX = "repository"  # where images from outside docs/ land in the site
DOXYGEN_HTML = os.path.join("build", "doxygen", "html")
CPP_API_DIR = "api/cpp"

# Inline links and images: [text](target "title") / ![alt](target); reference definitions:
# [label]: target. Code spans and fenced code blocks are left alone.
INLINE = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]+)>?(\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^( {0,3}\[[^\]]+\]:[ \t]*)<?(\S+?)>?([ \t]+.*)?$", re.M)
FENCE = re.compile(r"^( {0,3})(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def _root(config):
    return os.path.dirname(os.path.abspath(config["config_file_path"]))


def _extra_file(uri, abs_src, config):
    """A file of the site at `uri` (as if it were docs/<uri>) whose content is `abs_src`."""
    file = File(uri, config["docs_dir"], config["site_dir"], config["use_directory_urls"])
    file.abs_src_path = abs_src
    return file


def _expand(entries, docs_dir):
    """The nav with every entry that is a glob pattern ("methods/*.md") replaced by the pages it
    matches, sorted: a page generated for a new method, problem or integrator joins the nav."""
    out = []
    for entry in entries:
        if isinstance(entry, str) and "*" in entry:
            matches = sorted(glob.glob(os.path.join(docs_dir, entry)))
            if not matches:
                log.warning(f"nav: no page matches '{entry}'")
            out.extend(os.path.relpath(m, docs_dir).replace(os.sep, "/") for m in matches)
        elif isinstance(entry, dict):
            out.append({key: _expand(value, docs_dir) if isinstance(value, list) else value
                        for key, value in entry.items()})
        else:
            out.append(entry)
    return out


def on_config(config):
    """Expands the glob patterns of the nav (see _expand)."""
    if config["nav"]:
        config["nav"] = _expand(config["nav"], config["docs_dir"])
    return config


def on_files(files, config):
    """Adds doxygen's HTML (when it was built) to the site as api/cpp/."""
    source = os.environ.get("CMB_DOXYGEN_HTML") or os.path.join(_root(config), DOXYGEN_HTML)
    if not os.path.isdir(source):
        return files
    for folder, _, names in os.walk(source):
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, source).replace(os.sep, "/")
            files.append(_extra_file(posixpath.join(CPP_API_DIR, rel), path, config))
    return files


def _split_target(target):
    """(path, rest) where rest is '#fragment' or '?query...' or ''."""
    match = re.match(r"([^#?]*)(.*)$", target)
    return match.group(1), match.group(2)


def _is_external(target):
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target)) or target.startswith(("#", "/"))


class _Rewriter:
    """Rewrites the links of one page whose targets lie outside docs_dir."""

    def __init__(self, page, config, files):
        self.root = _root(config)
        self.docs_dir = os.path.abspath(config["docs_dir"])
        self.src = page.file.src_uri
        self.files = files
        self.config = config
        self.repo_url = (config.get("repo_url") or "").rstrip("/")
        self.branch = (config.get("extra") or {}).get("repository_branch", "main")

    def outside_path(self, path):
        """The repository-relative path of a relative link target outside docs_dir, else None."""
        if not path or _is_external(path):
            return None
        target = os.path.normpath(os.path.join(self.docs_dir, os.path.dirname(self.src), path))
        if target == self.docs_dir or target.startswith(self.docs_dir + os.sep):
            return None
        rel = os.path.relpath(target, self.root)
        if rel.startswith(".."):
            log.warning(f"Documentation file '{self.src}' links to '{path}', outside the "
                        "repository: nothing there to show")
            return rel
        if not os.path.exists(target):
            log.warning(f"Documentation file '{self.src}' links to '{path}', which is not in the "
                        f"repository ('{rel}' does not exist)")
        return rel.replace(os.sep, "/")

    def image_url(self, rel):
        """Copies an image from outside docs/ into the site; its URL relative to the page."""
        dest = posixpath.join(REPO_PREFIX, rel)
        if self.files.get_file_from_path(dest) is None:
            self.files.append(_extra_file(dest, os.path.join(self.root, rel), self.config))
        page_dir = posixpath.dirname(self.src)
        return posixpath.relpath(dest, page_dir or ".")

    def web_url(self, rel):
        kind = "tree" if os.path.isdir(os.path.join(self.root, rel)) else "blob"
        return f"{self.repo_url}/{kind}/{self.branch}/{rel}"

    def inline(self, match):
        bang, text, target, title = match.groups()
        path, rest = _split_target(target)
        rel = self.outside_path(path)
        if rel is None:
            return match.group(0)
        if bang:
            return f"![{text}]({self.image_url(rel)}{title or ''})"
        if self.repo_url:
            return f"[{text}]({self.web_url(rel)}{rest})"
        shown = rel + ("/" if path.endswith("/") and not rel.endswith("/") else "")
        plain = text.strip("`")
        if plain in (shown, rel, path, target):
            return f"`{shown}`"
        return f"{text} (`{shown}`)"

    def reference(self, match):
        head, target, tail = match.groups()
        path, rest = _split_target(target)
        rel = self.outside_path(path)
        if rel is None:
            return match.group(0)
        # A reference definition must stay a link target: the repository view when there is
        # one, else the copy in the site (images and any other file alike).
        if self.repo_url:
            url = self.web_url(rel) + rest
        elif os.path.isdir(os.path.join(self.root, rel)):
            log.warning(f"Documentation file '{self.src}': the reference [..]: {target} names a "
                        "folder outside docs/, which the site cannot show; use an inline link")
            return match.group(0)
        else:
            url = self.image_url(rel) + rest
        return f"{head}{url}{tail or ''}"

    def rewrite_line(self, line):
        # Leave code spans alone: split around them and rewrite the text between.
        parts, last = [], 0
        for span in CODE_SPAN.finditer(line):
            parts.append(INLINE.sub(self.inline, line[last:span.start()]))
            parts.append(span.group(0))
            last = span.end()
        parts.append(INLINE.sub(self.inline, line[last:]))
        return "".join(parts)


def on_page_markdown(markdown, page, config, files):
    """Rewrites the page's links that point outside docs_dir (see the module's docstring)."""
    rewriter = _Rewriter(page, config, files)
    out, fence = [], None
    for line in markdown.split("\n"):
        opening = FENCE.match(line)
        if fence is not None:
            if opening and opening.group(2) == fence:
                fence = None
            out.append(line)
            continue
        if opening:
            fence = opening.group(2)
            out.append(line)
            continue
        if line.startswith("    ") and not line.strip().startswith(("-", "*", "[")):
            out.append(line)  # possibly an indented code block: leave it
            continue
        line = REFERENCE.sub(rewriter.reference, line)
        out.append(rewriter.rewrite_line(line))
    return "\n".join(out)


class _Anchors(html.parser.HTMLParser):
    """The ids of an HTML page and the hrefs of its links."""

    def __init__(self):
        super().__init__()
        self.ids, self.hrefs = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])


_PAGES = {}


def on_page_content(html_text, page, config, files):
    """Remembers each built page's ids and links for the fragment check."""
    parser = _Anchors()
    parser.feed(html_text)
    # The title heading's id is in the page's own content; the toc holds the others too.
    _PAGES[page.file.dest_uri] = (parser.ids, parser.hrefs, page.file.src_uri)
    return html_text


def on_post_build(config):
    """Fails (a warning under --strict) on a link to a fragment its target page does not have."""
    broken = 0
    for dest, (_, hrefs, src) in _PAGES.items():
        for href in hrefs:
            if _is_external(href) and not href.startswith("#"):
                continue
            path, _, fragment = href.partition("#")
            if not fragment:
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(dest), path)) \
                if path else dest
            if config["use_directory_urls"] and not target.endswith(".html"):
                target = posixpath.join(target, "index.html")
            if target not in _PAGES:
                continue  # not a page of the site (doxygen's, a copied file): not checked
            if fragment not in _PAGES[target][0]:
                broken += 1
                log.warning(f"Documentation file '{src}' links to '{href}': "
                            f"'{_PAGES[target][2]}' has no heading or anchor '#{fragment}'")
    _PAGES.clear()
