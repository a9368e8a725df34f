"""unparse of an element with attributes and a non-string '#text' (int, bool):
xmltodict 0.13.0 passes the raw value to the SAX writer, which raises TypeError."""
import xmltodict


def test_unparse_attributes_with_integer_and_bool_text():
    document = {"stock": {"item": [{"@sku": "A1", "#text": 42}, {"@sku": "B2", "#text": True}]}}
    xml = xmltodict.unparse(document, full_document=False)
    assert xml == '<stock><item sku="A1">42</item><item sku="B2">true</item></stock>'
