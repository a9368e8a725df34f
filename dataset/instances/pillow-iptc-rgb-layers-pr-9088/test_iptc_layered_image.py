"""An IPTC/NAA image made of one colour component of an RGB or CMYK image has that mode.

An IPTC record (3, 60) gives the number of layers and whether the file holds a component; a
3-layer file is an RGB image and (3, 65) says which band this file's data is. Pillow 11.3.0's
IptcImageFile._open sets the mode to that band's letter ("RGB"[band], so "R", "G" or "B"; "C",
"M", ... for CMYK), which is no image mode: getbands() of such an image raises KeyError in
ImageMode.getmode (fixed upstream in PR 9088, Pillow 12.0.0: the image is RGB or CMYK, with the
file's data in its band and the other bands black)."""
import io

from PIL import Image


def _iptc(layers: int, band: int | None, value: int) -> io.BytesIO:
    """A 1x1 raw IPTC/NAA image: one component of a `layers`-layer image."""
    def field(tag: tuple[int, int], data: bytes) -> bytes:
        return bytes((0x1C, *tag, 0, len(data))) + data

    records = field((3, 60), bytes((layers, 1 if layers > 1 else 0)))
    records += field((3, 120), b"\x01")  # raw, uncompressed
    if band is not None:
        records += field((3, 65), bytes((band + 1,)))
    records += field((3, 20), b"\x01") + field((3, 30), b"\x01")  # width, height
    records += field((8, 10), bytes((value,)))  # the pixel data
    return io.BytesIO(records)


def test_component_of_a_layered_image_is_rgb_or_cmyk():
    green = Image.open(_iptc(3, band=1, value=200))
    assert green.format == "IPTC"
    assert green.getbands() == ("R", "G", "B")
    assert green.mode == "RGB"
    assert green.getpixel((0, 0)) == (0, 200, 0)

    red = Image.open(_iptc(3, band=None, value=7))
    assert red.getbands() == ("R", "G", "B")
    assert red.getpixel((0, 0)) == (7, 0, 0)

    magenta = Image.open(_iptc(4, band=1, value=9))
    assert magenta.getbands() == ("C", "M", "Y", "K")
    assert magenta.getpixel((0, 0)) == (0, 9, 0, 0)

    gray = Image.open(_iptc(1, band=None, value=42))
    assert gray.getbands() == ("L",)
    assert gray.getpixel((0, 0)) == 42
