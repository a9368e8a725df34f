"""When TF_HISTORY holds nothing but the alias itself, there is no command to fix and
fix_command should stop quietly (EmptyCommand); thefuck 3.29 gets None from
_get_raw_command and crashes joining it as a script (TypeError)."""


def test_history_with_only_the_alias(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("TF_SHELL", "bash")
    monkeypatch.setenv("TF_ALIAS", "fuck")
    monkeypatch.setenv("TF_HISTORY", "fuck\nfuck\nfuck")
    from thefuck.argument_parser import Parser
    from thefuck.entrypoints.fix_command import fix_command

    known_args = Parser().parse(["thefuck"])
    assert known_args.command == []
    assert fix_command(known_args) is None
