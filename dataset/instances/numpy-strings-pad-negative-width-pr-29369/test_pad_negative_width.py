"""np.strings.center, ljust, rjust and zfill pad each string to a width; like str.center, a width
below the string's length, negative included, leaves the string as it is. numpy 2.0.0 sizes the
result dtype from the widest width alone, so a negative width asks for a string dtype of negative
size: ValueError."""
import numpy as np


def test_padding_to_a_negative_width_leaves_the_strings_unchanged():
    words = np.array(["abc", "de"])
    assert np.strings.center(words, -2).tolist() == ["abc", "de"]
    assert np.strings.ljust(words, -1).tolist() == ["abc", "de"]
    assert np.strings.rjust(words, -5, fillchar="*").tolist() == ["abc", "de"]
    assert np.strings.zfill(np.array(["34", "-7"]), -1).tolist() == ["34", "-7"]
    assert np.strings.center(np.array([b"xy"]), -3).tolist() == [b"xy"]
    # the same through np.char, and positive widths pad as before
    assert np.char.center("abc", -2).tolist() == "abc"
    assert np.strings.center(words, 7, fillchar="*").tolist() == ["**abc**", "***de**"]
    assert np.strings.ljust(words, 4).tolist() == ["abc ", "de  "]
    assert np.strings.zfill(np.array(["34", "-7"]), 4).tolist() == ["0034", "-007"]
