package io.healbench.guard.service.analysis;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One project module: its tree, what its top-level names are bound to, and its functions and classes. */
final class ModuleScope {

    final String name;
    final String file;
    final PyNode tree;
    final boolean isPackage;
    /** Top-level name -> qualified name of what it is bound to (imports, defs, classes, plain aliases). */
    final Map<String, String> bindings = new HashMap<>();
    /** Names assigned at top level (module globals holding data). */
    final Set<String> assigned = new HashSet<>();
    /** The expressions module-level assignments bind each global to (its definitions, when that is all of them). */
    final Map<String, List<PyNode>> definitions = new HashMap<>();
    /** Globals also bound elsewhere (in functions, by augmented assignment, loops...): definitions incomplete. */
    final Set<String> redefined = new HashSet<>();
    final FunctionInfo body;

    ModuleScope(String name, String file, PyNode tree) {
        this.name = name;
        this.file = file;
        this.tree = tree;
        this.isPackage = file.endsWith("__init__.py");
        this.body = new FunctionInfo(this, "<module>", tree, null, null, FunctionInfo.Kind.FUNCTION);
    }

    /** The package relative imports of this module are resolved against. */
    String packageName() {
        if (isPackage) {
            return name;
        }
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(0, dot);
    }
}
