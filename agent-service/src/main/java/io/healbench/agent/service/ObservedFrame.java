package io.healbench.agent.service;

/** One traceback entry of a crash (outermost first): the file, the line and the function's plain name. */
public record ObservedFrame(String file, int line, String function) {

    public ObservedFrame {
        file = file == null ? "" : file;
        function = function == null ? "" : function;
    }
}
