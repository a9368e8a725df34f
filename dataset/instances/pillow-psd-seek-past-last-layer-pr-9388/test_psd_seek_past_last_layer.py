"""Seeking a PSD image past its last layer raises EOFError, as for every multi-frame format.

PsdImageFile reads its layer table lazily: right after opening, the number of layers is not
known yet, so ImageFile._seek_check lets any layer number through, and Pillow 11.3.0's
PsdImageFile.seek then indexes the layer list with it: seeking past the last layer before
anything asked for n_frames raises IndexError instead of EOFError (fixed upstream in PR 9388,
Pillow 12.2.0). The idiom `try: im.seek(n) except EOFError` is how callers probe for a frame."""
import io
import struct

from PIL import Image


def _psd(layers: int) -> bytes:
    """A 2x2 8-bit RGB Photoshop document with `layers` raw RGB layers."""
    width = height = 2
    header = b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, height, width, 8, 3)
    records = b""
    channel_data = b""
    for layer in range(layers):
        records += struct.pack(">iiiiH", 0, 0, height, width, 3)
        for channel in range(3):
            records += struct.pack(">HI", channel, 2 + width * height)
        records += b"8BIMnorm" + bytes([255, 0, 0, 0]) + struct.pack(">I", 0)
        for channel in range(3):
            channel_data += struct.pack(">H", 0) + bytes([layer * 50 + channel] * (width * height))
    layer_info = struct.pack(">h", layers) + records + channel_data
    layer_info += b"\0" * (len(layer_info) % 2)
    layer_section = struct.pack(">I", len(layer_info)) + layer_info
    composite = struct.pack(">H", 0) + bytes([10] * 4 + [20] * 4 + [30] * 4)
    return (header + struct.pack(">II", 0, 0) + struct.pack(">I", len(layer_section))
            + layer_section + composite)


def _seek_fails_with_eof(im: Image.Image, layer: int) -> bool:
    try:
        im.seek(layer)
    except EOFError:
        return True
    return False


def test_seek_past_the_last_layer_raises_eoferror():
    data = _psd(layers=2)

    im = Image.open(io.BytesIO(data))
    assert im.format == "PSD"
    assert im.getpixel((0, 0)) == (10, 20, 30)
    assert _seek_fails_with_eof(im, 3)

    im = Image.open(io.BytesIO(data))
    im.seek(2)
    assert im.tell() == 2 and im.mode == "RGB"
    assert _seek_fails_with_eof(im, 5)

    assert _seek_fails_with_eof(Image.open(io.BytesIO(_psd(layers=1))), 2)

    im = Image.open(io.BytesIO(data))
    assert im.n_frames == 2
    assert _seek_fails_with_eof(im, 3)
