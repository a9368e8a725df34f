"""A PSD layer with a mask channel is still a layer Pillow can list.

Photoshop stores a layer's channels with ids 0-3 for the colour and alpha channels, -1 for
transparency and -2/-3 for the user and vector masks (65534/65533 read unsigned). Pillow 11.3.0's
_layerinfo maps every id other than 65535 through "RGBA"[id], so a layer that carries a layer
mask (id 65534) raises IndexError while the layer table is read: n_frames, is_animated and
seeking to a layer all fail (fixed upstream in PR 9644, Pillow 12.3.0: unknown ids are skipped,
and such a layer has no known mode)."""
import io
import struct

from PIL import Image

USER_MASK = 0xFFFE  # channel id -2
TRANSPARENCY = 0xFFFF  # channel id -1


def _psd(layer_channels: tuple[int, ...]) -> bytes:
    """A 2x2 8-bit RGB Photoshop document with one raw layer made of `layer_channels`."""
    width = height = 2
    header = b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, height, width, 8, 3)
    record = struct.pack(">iiiiH", 0, 0, height, width, len(layer_channels))
    for channel in layer_channels:
        record += struct.pack(">HI", channel, 2 + width * height)
    record += b"8BIMnorm" + bytes([255, 0, 0, 0]) + struct.pack(">I", 0)
    channel_data = b"".join(
        struct.pack(">H", 0) + bytes([channel & 0xFF] * (width * height)) for channel in layer_channels
    )
    layer_info = struct.pack(">h", 1) + record + channel_data
    layer_info += b"\0" * (len(layer_info) % 2)
    layer_section = struct.pack(">I", len(layer_info)) + layer_info
    composite = struct.pack(">H", 0) + bytes([10] * 4 + [20] * 4 + [30] * 4)
    return (header + struct.pack(">II", 0, 0) + struct.pack(">I", len(layer_section))
            + layer_section + composite)


def test_layer_with_a_user_mask_channel_is_listed():
    im = Image.open(io.BytesIO(_psd((0, 1, 2, TRANSPARENCY))))
    assert im.n_frames == 1
    assert im.layers[0][1] == "RGBA"

    im = Image.open(io.BytesIO(_psd((0, 1, 2, USER_MASK))))
    assert im.format == "PSD"
    assert im.getpixel((0, 0)) == (10, 20, 30)
    assert im.n_frames == 1
    assert not im.is_animated
    name, mode, bbox, tile = im.layers[0]
    assert bbox == (0, 0, 2, 2)
