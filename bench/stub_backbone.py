"""The backbones file the benchmarks hand to the services: config/backbones.yaml's `stub` entry, pointed at the
scripted model server a benchmark started (only base_url changes)."""

_TEMPLATE = """\
# Written by a benchmark in bench/ for one run of it; deleted when it ends.
backbones:
  stub:
    provider: openai
    model: stub-model
    base_url: {base_url}
    api_key_env: HEALBENCH_STUB_API_KEY
    api_key_required: false
    seed: 7
    max_output_tokens: 2048
    timeout_s: 60
    max_retries: 0
    prices: {{input: 1.0, cached_input: 0.25, output: 4.0}}
"""


def stub_backbones(base_url: str) -> str:
    """The YAML text of a backbones file whose one backbone, `stub`, is the model server at base_url."""
    return _TEMPLATE.format(base_url=base_url)
