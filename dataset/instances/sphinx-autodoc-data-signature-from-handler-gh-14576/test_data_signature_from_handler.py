"""An ``autodoc-process-signature`` handler that gives a signature to a data object.

autodoc documents module-level data without a signature: sphinx 9.0.4's
``_format_signatures`` starts from an empty list for it, emits ``autodoc-process-signature``
with ``args=None`` and, when a handler returns ``(args, retann)``, stores it with
``signatures[0] = ...``: an assignment into an empty list, IndexError. The caller turns it into
a warning and drops the object's whole entry (its docstring too); here it is called directly."""
import sys
import types
from types import SimpleNamespace

from sphinx.events import EventManager
from sphinx.ext.autodoc._property_types import _AssignStatementProperties
from sphinx.ext.autodoc._shared import _AutodocConfig
from sphinx.ext.autodoc._dynamic._signatures import _format_signatures
from sphinx.util.inspect import safe_getattr


class Trigger:
    def __call__(self):
        return 42


def give_data_a_call_signature(app, objtype, name, obj, options, args, retann):
    if objtype == "data":
        return "()", None
    return None


def test_handler_signature_for_a_data_object():
    module = types.ModuleType("hb_sig_target")
    module.trigger = Trigger()
    sys.modules["hb_sig_target"] = module
    events = EventManager(SimpleNamespace(pdb=False))
    events.add("autodoc-process-signature")
    events.connect("autodoc-process-signature", give_data_a_call_signature, 500)
    props = _AssignStatementProperties(
        obj_type="data",
        module_name="hb_sig_target",
        parts=("trigger",),
        docstring_lines=("Call me.",),
        _obj=module.trigger,
        _obj___module__=None,
        value=module.trigger,
        annotation="",
        class_var=False,
        instance_var=False,
        _obj_is_generic_alias=False,
        _obj_is_attribute_descriptor=False,
        _obj_is_mock=False,
        _obj_is_sentinel=None,
        _obj_repr_rst="",
        _obj_type_annotation=None,
    )
    try:
        signatures = _format_signatures(
            autodoc_annotations={},
            config=_AutodocConfig(),
            docstrings=[["Call me."]],
            events=events,
            get_attr=safe_getattr,
            parent=module,
            options=SimpleNamespace(_tab_width=8),
            props=props,
        )
    finally:
        del sys.modules["hb_sig_target"]
    assert signatures == [("()", "")]
