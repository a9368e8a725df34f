"""A prime written after a one-character superscript: ``$x^2'$``.

mathtext turns the apostrophes after a sub/superscript into \\prime glyphs appended to the
superscript box (Parser.subsuper: ``super.children.extend(...)``). In matplotlib 3.10.9 that
assumes the superscript is an Hlist, which it is for a braced one (``$x^{2}'$``), but a single
unbraced character is parsed as a bare Char, which has no children:
AttributeError: 'Char' object has no attribute 'children'."""
import matplotlib
matplotlib.use("Agg")
from matplotlib.mathtext import MathTextParser


def test_prime_after_single_character_superscript_is_laid_out():
    parser = MathTextParser("agg")
    braced = parser.parse(r"$x^{2}'$")
    unbraced = parser.parse(r"$x^2'$")
    assert unbraced.width == braced.width and unbraced.height == braced.height
    assert parser.parse(r"$f^a''$").width > 0
