"""repr() of a combined member of a @global_enum Flag must list the member names qualified by
the module, like it does for single members."""
import enum


def test_global_flag_repr_of_combined_members():
    @enum.global_enum
    class Perm(enum.Flag):
        READ = 1
        WRITE = 2
        EXEC = 4

    mod = Perm.__module__.split(".")[-1]

    assert repr(Perm.READ) == f"{mod}.READ"
    assert repr(Perm.READ | Perm.EXEC) == f"{mod}.READ|{mod}.EXEC"
    assert repr(Perm.READ | Perm.WRITE | Perm.EXEC) == f"{mod}.READ|{mod}.WRITE|{mod}.EXEC"
