"""Iterating the reader that read_csv(..., iterator=True, nrows=N) returns, with no chunksize:
TextFileReader.get_chunk takes the chunk size from self.chunksize, which is None here, and caps
it with min(size, nrows - rows_read); comparing an int with None raises TypeError before a row
is read."""
import io

import pandas as pd

CSV = b"a,b\n1,2\n3,4\n5,6\n"


def test_iterating_a_reader_with_nrows_and_no_chunksize():
    reader = pd.read_csv(io.BytesIO(CSV), nrows=2, iterator=True)
    chunks = list(reader)
    assert len(chunks) == 1
    assert chunks[0]["a"].tolist() == [1, 3]
    assert chunks[0]["b"].tolist() == [2, 4]
