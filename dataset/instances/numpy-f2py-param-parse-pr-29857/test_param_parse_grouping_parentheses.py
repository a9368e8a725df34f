"""f2py's crackfortran evaluates array dimensions against the PARAMETERs declared before them with
param_parse. numpy 2.4.1 reads any expression with a parenthesis as an element of an array
parameter, `pa(1)`; a dimension whose parentheses only group, `(n + m)`, then has an empty array
name and an index that is no integer: ValueError (and crackfortran, which swallows it, keeps the
dimension unevaluated)."""
from numpy.f2py import crackfortran


def test_param_parse_substitutes_parameters_inside_grouping_parentheses(tmp_path):
    params = {"n": "2", "m": "3", "pa": {1: 5, 2: 7}}
    assert crackfortran.param_parse("(n + m)", params) == "(2 + 3)"
    assert crackfortran.param_parse("(n + m)*2", params) == "(2 + 3)*2"
    assert crackfortran.param_parse("2*(n + 1)", params) == "2*(2 + 1)"
    # elements of an array parameter and plain parameters as before
    assert crackfortran.param_parse("pa(2)", params) == "7"
    assert crackfortran.param_parse("pa(n)", {"n": "1", "pa": {1: 5}}) == "5"
    assert crackfortran.param_parse("m", params) == "3"
    # and a whole declaration gets its dimension evaluated
    source = tmp_path / "grouped.f90"
    source.write_text(
        "subroutine fill(x)\n"
        "  integer, parameter :: n = 2, m = 3\n"
        "  real, dimension((n + m)) :: x\n"
        "  x = 1.0\n"
        "end subroutine fill\n"
    )
    block = crackfortran.crackfortran([str(source)])[0]
    assert block["vars"]["x"]["dimension"] == ["5"]
