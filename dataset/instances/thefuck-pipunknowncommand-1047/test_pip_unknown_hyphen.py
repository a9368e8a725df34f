"""pip_unknown_command with a mistyped command containing a hyphen: the rule matches, but
thefuck 3.29's get_new_command only looks for [a-z]+ and indexes an empty list (IndexError)."""
from thefuck.rules import pip_unknown_command
from thefuck.types import Command


def test_pip_unknown_command_with_hyphen():
    command = Command(
        "pip in-stall requests",
        'ERROR: unknown command "in-stall" - maybe you meant "install"\n',
    )
    assert pip_unknown_command.match(command)
    assert pip_unknown_command.get_new_command(command) == "pip install requests"
