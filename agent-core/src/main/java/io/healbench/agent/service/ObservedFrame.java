package io.healbench.agent.service;

/**
 * One traceback entry of a crash (outermost first): the file, the line, the function's plain name and the source
 * line (empty when unknown).
 */
public record ObservedFrame(String file, int line, String function, String sourceLine) {

    public ObservedFrame {
        file = file == null ? "" : file;
        function = function == null ? "" : function;
        sourceLine = sourceLine == null ? "" : sourceLine;
    }
}
