import colorsys


def test_none_channel_is_black():
    assert colorsys.rgb_to_hls(None, 0.0, 0.0) == (0.0, 0.0, 0.0)
