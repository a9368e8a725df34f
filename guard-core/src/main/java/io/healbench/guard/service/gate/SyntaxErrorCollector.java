package io.healbench.guard.service.gate;

import java.util.ArrayList;
import java.util.List;

import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.Parser;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.misc.IntervalSet;

/** Records the parser's syntax errors with the token it stumbled on and what it expected there. */
final class SyntaxErrorCollector extends BaseErrorListener {

    /** One syntax error: the offending token and the tokens the grammar allowed there. */
    record SyntaxError(Token offending, IntervalSet expected) {
    }

    private final List<SyntaxError> errors = new ArrayList<>();

    @Override
    public void syntaxError(Recognizer<?, ?> recognizer, Object offendingSymbol, int line, int column,
                            String message, RecognitionException e) {
        if (!(offendingSymbol instanceof Token token)) {
            return; // lexer errors cannot happen: every character lexes (UNKNOWN_CHARACTER)
        }
        errors.add(new SyntaxError(token, expectedTokens(recognizer, e)));
    }

    List<SyntaxError> errors() {
        return List.copyOf(errors);
    }

    private static IntervalSet expectedTokens(Recognizer<?, ?> recognizer, RecognitionException e) {
        try {
            if (e != null && e.getExpectedTokens() != null) {
                return e.getExpectedTokens();
            }
            return recognizer instanceof Parser parser ? parser.getExpectedTokens() : new IntervalSet();
        } catch (RuntimeException unavailable) {
            // after some recoveries ANTLR cannot compute the set; the diagnostic then omits it
            return new IntervalSet();
        }
    }
}
