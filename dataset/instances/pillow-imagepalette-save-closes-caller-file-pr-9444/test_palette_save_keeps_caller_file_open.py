"""ImagePalette.save closes only a file it opened itself.

ImagePalette.save takes a filename or an open text file. Pillow 11.3.0 closes the file at the end
in both cases, so a caller that hands it a stream it owns (to write several palettes into one
text, or to read the text back) gets a closed stream: a second save into it raises ValueError
("I/O operation on closed file") from inside ImagePalette.save (fixed upstream in PR 9444,
Pillow 12.2.0: the file is closed only when save opened it from a filename)."""
import io

from PIL import ImagePalette


def _entries(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("#")]


def test_palettes_saved_into_one_stream():
    warm = ImagePalette.ImagePalette("RGB", [255, 0, 0, 255, 128, 0])
    cool = ImagePalette.ImagePalette("RGB", [0, 0, 255, 0, 128, 255])

    out = io.StringIO()
    warm.save(out)
    cool.save(out)
    assert not out.closed

    text = out.getvalue()
    assert text.count("# Palette\n") == 2
    entries = _entries(text)
    assert len(entries) == 512
    assert entries[0] == "0 255 0 0" and entries[1] == "1 255 128 0"
    assert entries[256] == "0 0 0 255" and entries[257] == "1 0 128 255"
    assert entries[2] == "2 0 0 0"
