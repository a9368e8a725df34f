"""Statistics over no pixels at all are zeros, not a crash.

ImageStat.Stat of an image with no pixels (an empty crop) or under a mask that selects none of
them has a pixel count of 0 per band. Pillow 11.3.0's mean, rms and var divide the band sums by
that count unguarded, so asking for the mean raises ZeroDivisionError (fixed upstream in PR 9105,
Pillow 12.0.0: a band with no pixels has mean, rms and variance 0)."""
from PIL import Image, ImageStat


def test_stat_of_an_empty_selection_is_zero():
    im = Image.new("RGB", (8, 8), (10, 20, 30))

    # A mask selecting no pixel: the region of interest is empty.
    none_selected = Image.new("L", im.size, 0)
    st = ImageStat.Stat(im, none_selected)
    assert st.count == [0, 0, 0]
    assert st.mean == [0, 0, 0]
    assert st.rms == [0, 0, 0]
    assert st.var == [0, 0, 0]
    assert st.stddev == [0, 0, 0]

    # An empty crop of a grayscale image.
    empty = Image.new("L", (5, 5), 7).crop((2, 2, 2, 2))
    assert empty.size == (0, 0)
    assert ImageStat.Stat(empty).mean == [0]

    # Non-empty selections keep their values.
    some = Image.new("L", im.size, 0)
    some.paste(255, (0, 0, 2, 8))
    st = ImageStat.Stat(im, some)
    assert st.count == [16, 16, 16]
    assert st.mean == [10.0, 20.0, 30.0]
    assert st.var == [0.0, 0.0, 0.0]
