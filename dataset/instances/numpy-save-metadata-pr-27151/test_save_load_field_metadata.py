"""The .npy format does not store dtype metadata: np.save warns that it drops it. numpy 2.0.0
warns, but still writes the descr of a structured dtype whose field has metadata with a
(format, metadata) tuple for that field, and np.load cannot read that header back: ValueError."""
import io

import numpy as np
import pytest


def test_an_array_whose_field_has_metadata_saves_and_loads_without_it():
    field = np.dtype("S3", metadata={"some": "stuff"})
    dt = np.dtype({"names": ["a", "b"], "formats": [np.float64, field]})
    arr = np.zeros(2, dtype=dt)
    arr["a"] = [1.5, 2.5]
    arr["b"] = [b"x", b"yz"]
    buf = io.BytesIO()
    with pytest.warns(UserWarning, match="metadata"):
        np.save(buf, arr)
    buf.seek(0)
    loaded = np.load(buf)
    assert loaded.dtype.names == ("a", "b")
    assert loaded["a"].tolist() == [1.5, 2.5]
    assert loaded["b"].tolist() == [b"x", b"yz"]
    assert loaded.dtype["b"].metadata is None
    # metadata on the whole dtype was already dropped, and keeps being dropped
    buf = io.BytesIO()
    with pytest.warns(UserWarning, match="metadata"):
        np.save(buf, np.arange(3, dtype=np.dtype(np.int64, metadata={"k": 1})))
    buf.seek(0)
    assert np.load(buf).tolist() == [0, 1, 2]
