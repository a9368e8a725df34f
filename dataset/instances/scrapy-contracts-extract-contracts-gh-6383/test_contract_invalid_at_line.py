"""ContractsManager.extract_contracts with a docstring line that starts with "@" but is not a
contract ("@ returns ..." with a space after the @): scrapy 2.8 calls .groups() on the result
of re.match(r"@(\w+)\s*(.*)", line) without checking it matched, so the None raises
AttributeError. Such lines should be skipped and the real contracts still extracted."""
from scrapy import Spider
from scrapy.contracts import ContractsManager
from scrapy.contracts.default import ReturnsContract, UrlContract


class DocSpider(Spider):
    name = "doc"

    def parse(self, response):
        """Parse the front page.
        @url http://example.com/
        @ returns one item per article (a note for readers, not a contract)
        @returns items 1
        """


def test_non_contract_at_line_is_skipped():
    manager = ContractsManager([UrlContract, ReturnsContract])
    contracts = manager.extract_contracts(DocSpider().parse)
    assert [type(c) for c in contracts] == [UrlContract, ReturnsContract]
