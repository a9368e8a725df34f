package io.healbench.guard.service.analysis;

import java.util.List;
import java.util.Map;

/**
 * One call as the analysis sees it: argument values and expressions (for constant filters like an open mode),
 * the receiver of a method call, and whether positions are uncertain (a starred argument).
 */
record CallShape(
        PyNode node,
        Value receiver,
        AccessPath receiverPath,
        List<Value> args,
        List<PyNode> argExprs,
        Map<String, Value> keywords,
        Map<String, PyNode> keywordExprs,
        Value starArgs,
        Value starKeywords) {

    /** Everything the call receives, receiver included. */
    Taint all() {
        Taint all = receiver == null ? Taint.NONE : receiver.deep();
        for (Value arg : args) {
            all = all.union(arg.deep());
        }
        for (Value keyword : keywords.values()) {
            all = all.union(keyword.deep());
        }
        if (starArgs != null) {
            all = all.union(starArgs.deep());
        }
        if (starKeywords != null) {
            all = all.union(starKeywords.deep());
        }
        return all;
    }

    Value arg(int position) {
        return position < args.size() ? args.get(position) : null;
    }
}
