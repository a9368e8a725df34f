"""Re-running a command whose output is not valid UTF-8: thefuck 3.29 decodes it strictly
and raises UnicodeDecodeError instead of returning the (lossily decoded) output."""
from thefuck import const
from thefuck.conf import settings
from thefuck.output_readers import rerun


def test_rerun_output_with_latin1_bytes(monkeypatch):
    for key, value in const.DEFAULT_SETTINGS.items():
        monkeypatch.setitem(settings, key, value)
    script = "printf 'caf\\351 ok\\n'"
    output = rerun.get_output(script, script)
    assert output.startswith("caf")
    assert output.endswith(" ok\n")
