"""Connection.iterdump() must produce the same dump whatever row factory the connection uses;
a mapping row factory must not leak into the dump's own schema queries."""
import sqlite3


def dict_factory(cursor, row):
    return {col[0]: value for col, value in zip(cursor.description, row)}


def make_db(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE item(id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT)")
    con.executemany("INSERT INTO item(label) VALUES (?)", [("a",), ("b'c",)])
    con.execute("CREATE INDEX item_label ON item(label)")
    con.commit()
    return con


def test_iterdump_with_mapping_row_factory(tmp_path):
    plain = make_db(tmp_path / "plain.db")
    expected = list(plain.iterdump())
    plain.close()

    con = make_db(tmp_path / "factory.db")
    con.row_factory = dict_factory
    dump = list(con.iterdump())

    assert dump == expected
    copy = sqlite3.connect(":memory:")
    copy.executescript("\n".join(dump))
    assert copy.execute("SELECT label FROM item ORDER BY id").fetchall() == [("a",), ("b'c",)]
    assert con.execute("SELECT label FROM item WHERE id = 1").fetchone() == {"label": "a"}
    con.close()
    copy.close()
