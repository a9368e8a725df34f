"""A PNG transparency option of the wrong kind for the image's mode is a ValueError.

The PNG writer takes `transparency` as an int (the transparent grey level or palette index) for
1, L, I and I;16 images, an int or bytes (per-entry alphas) for P images and an (r, g, b)
sequence for RGB images. Pillow 11.3.0's PngImagePlugin._save uses the value as given, so a
value of another kind, such as the RGB colour a caller kept from the image before converting it
to L, fails deep in the writer with TypeError ("'<' not supported between instances of 'tuple'
and 'int'") instead of a ValueError naming the option (fixed upstream in PR 9536, Pillow
12.3.0)."""
import io

from PIL import Image


def _save_error(im: Image.Image, transparency: object) -> type[BaseException] | None:
    try:
        im.save(io.BytesIO(), "PNG", transparency=transparency)
    except ValueError:
        return ValueError
    return None


def _roundtrip(im: Image.Image, transparency: object) -> object:
    out = io.BytesIO()
    im.save(out, "PNG", transparency=transparency)
    out.seek(0)
    return Image.open(out).info.get("transparency")


def test_transparency_of_the_wrong_kind_is_a_valueerror():
    rgb = Image.new("RGB", (4, 4), (255, 255, 255))
    white = (255, 255, 255)
    gray = rgb.convert("L")

    # the RGB colour kept from before the conversion is no grey level
    assert _save_error(gray, white) is ValueError
    assert _save_error(Image.new("1", (4, 4)), "0") is ValueError
    assert _save_error(Image.new("P", (4, 4)), [0, 255]) is ValueError
    assert _save_error(rgb, 255) is ValueError
    assert _save_error(rgb, (1, 2)) is ValueError

    # the right kinds keep working
    assert _roundtrip(gray, 255) == 255
    assert _roundtrip(rgb, white) == white
    assert _roundtrip(rgb, [0, 1, 2]) == (0, 1, 2)
    assert _roundtrip(Image.new("P", (4, 4)), 0) == 0
