"""An extlinks role whose caption has no ``%s``.

Since Sphinx 6 the caption of an ``extlinks`` entry is a %-format string, and a caption in the
pre-4.0 prefix style (``'issue '``, ``'#'``) makes the role compute ``caption % part``, which
raises ``TypeError: not all arguments converted during string formatting`` while a document
using the role is read: the whole build aborts on a configuration value that only affects a
link's text, instead of falling back to using the caption as a prefix."""
from sphinx.ext.extlinks import make_link_role


def test_caption_without_placeholder_is_used_as_a_prefix():
    role = make_link_role("issue", "https://tracker.example.org/issues/%s", "issue ")
    nodes, messages = role("issue", ":issue:`1234`", "1234", 1, None)
    assert messages == []
    (link,) = nodes
    assert link["refuri"] == "https://tracker.example.org/issues/1234"
    assert link.astext() == "issue 1234"
    # format-string captions and explicit titles keep working
    role = make_link_role("gh", "https://github.com/%s", "gh:%s")
    (link,), _ = role("gh", ":gh:`sphinx-doc`", "sphinx-doc", 1, None)
    assert link.astext() == "gh:sphinx-doc"
    (link,), _ = role("gh", ":gh:`Sphinx <sphinx-doc>`", "Sphinx <sphinx-doc>", 1, None)
    assert link.astext() == "Sphinx"
