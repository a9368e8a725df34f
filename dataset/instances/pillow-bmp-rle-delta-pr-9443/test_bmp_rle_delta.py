"""An RLE-compressed BMP whose rows are skipped with a delta escape decodes.

In BMP's RLE8 encoding the escape 00 02 is followed by two bytes, the right and down offsets to
move by. Pillow 11.3.0's BmpRleDecoder reads those two bytes, checks them, and then reads two more
from the file as the offsets. A bitmap whose last escape is a delta (an encoder skipping the
trailing rows, which leaves nothing after it) fails with ValueError ("not enough values to
unpack"), and elsewhere the decoder takes the next run for the offsets and scrambles the picture
(fixed upstream in PR 9443, Pillow 12.2.0)."""
import io
import struct

from PIL import Image

BLACK, RED = (0, 0, 0), (255, 0, 0)


def _bmp_rle8(width: int, height: int, rle: bytes) -> bytes:
    palette = b"".join(bytes((b, g, r, 0)) for r, g, b in (BLACK, RED))
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 8, 1, len(rle), 2835, 2835, 2, 0)
    offset = 14 + len(info) + len(palette)
    return b"BM" + struct.pack("<IHHI", offset + len(rle), 0, 0, offset) + info + palette + rle


def _pixels(data: bytes) -> list[list[int]]:
    im = Image.open(io.BytesIO(data))
    assert im.format == "BMP" and im.size == (4, 2)
    im.load()
    return [[im.getpixel((x, y)) for x in range(4)] for y in range(2)]


def test_delta_escape_moves_by_its_own_offsets():
    # Rows are stored bottom-up: 4 red pixels, end of line, then a delta of one row down
    # that skips the (black) top row; the bitmap is complete, nothing follows.
    skip_last_row = b"\x04\x01" + b"\x00\x00" + b"\x00\x02\x00\x01"
    assert _pixels(_bmp_rle8(4, 2, skip_last_row)) == [[0, 0, 0, 0], [1, 1, 1, 1]]

    # A delta two pixels right inside the bottom row, then 2 red pixels, end of line,
    # a full red top row and the end-of-bitmap marker.
    skip_two = b"\x00\x02\x02\x00" + b"\x02\x01" + b"\x00\x00" + b"\x04\x01" + b"\x00\x01"
    assert _pixels(_bmp_rle8(4, 2, skip_two)) == [[1, 1, 1, 1], [0, 0, 1, 1]]
