"""DataFrame.to_stata with a strL column (convert_strl) whose object values are long strings and
pd.NA: pandas 2.3.3's StataStrLWriter turns only None into the empty string, so pd.NA is stored in
the GSO table as if it were text and generate_blob's bytes(value, "utf-8") raises TypeError. A
missing value in a string column must be written as an empty strL, as None already is, and the
file must read back. The file goes to an in-memory buffer."""
import io

import pandas as pd


def test_to_stata_writes_a_strl_column_holding_pd_na():
    long_text = "x" * 3000
    frame = pd.DataFrame({"s": [long_text, pd.NA, "short"]}, dtype=object)
    buffer = io.BytesIO()
    frame.to_stata(buffer, version=117, convert_strl=["s"], write_index=False)

    buffer.seek(0)
    back = pd.read_stata(buffer)
    assert list(back["s"]) == [long_text, "", "short"]
