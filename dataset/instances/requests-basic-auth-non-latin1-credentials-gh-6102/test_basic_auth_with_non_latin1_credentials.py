"""HTTPBasicAuth (and a plain (user, password) auth tuple) builds the Authorization header with
requests.auth._basic_auth_str, which encodes text credentials as latin-1 only. A username or
password with a character outside latin-1 (Cyrillic, CJK, the euro sign) makes that encoding
raise UnicodeEncodeError: 'latin-1' codec can't encode characters, while preparing the request,
instead of sending the UTF-8 credentials RFC 7617 names as the one charset a server may ask for."""
from base64 import b64encode

import requests
from requests.auth import HTTPBasicAuth


def _expected(raw):
    return "Basic " + b64encode(raw).decode("ascii")


def test_basic_auth_header_for_credentials_beyond_latin1():
    prepared = requests.Request("GET", "http://example.invalid/", auth=("Сергей", "пароль")).prepare()
    assert prepared.headers["Authorization"] == _expected("Сергей:пароль".encode("utf-8"))

    prepared = requests.Request("GET", "http://example.invalid/", auth=HTTPBasicAuth("ann", "10€")).prepare()
    assert prepared.headers["Authorization"] == _expected("ann:10€".encode("utf-8"))

    # latin-1 credentials keep their latin-1 bytes, bytes credentials are sent as they are
    prepared = requests.Request("GET", "http://example.invalid/", auth=("jürgen", "pässwort")).prepare()
    assert prepared.headers["Authorization"] == _expected("jürgen:pässwort".encode("latin-1"))
    prepared = requests.Request("GET", "http://example.invalid/", auth=(b"u", "пароль".encode("utf-8"))).prepare()
    assert prepared.headers["Authorization"] == _expected(b"u:" + "пароль".encode("utf-8"))
