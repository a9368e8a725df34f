package io.healbench.guard.service.analysis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A project class: its bases (as written) and methods. */
final class ClassInfo {

    final ModuleScope module;
    final String qualname;
    final PyNode node;
    final List<PyNode> bases;
    final Map<String, FunctionInfo> methods = new HashMap<>();

    ClassInfo(ModuleScope module, String qualname, PyNode node) {
        this.module = module;
        this.qualname = qualname;
        this.node = node;
        this.bases = node.nodes("bases");
    }

    String qualified() {
        return module.name + "." + qualname;
    }

    @Override
    public String toString() {
        return qualified();
    }
}
