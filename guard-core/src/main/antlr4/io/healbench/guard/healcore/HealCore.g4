/*
 * HealCore: the analyzable subset of Python 3 in which healing code is written.
 *
 * This grammar IS the definition of HealCore's syntax. A construct that has no rule here is not
 * HealCore: `def`, `class`, `lambda`, `yield`, `async`/`await`, `global`, `nonlocal`, `return`,
 * `with`, `match`, decorators, generator expressions (also as the sole call argument), relative
 * and star imports. Those keywords are still lexed as keywords (below), so they can never be
 * read as names, and the gate names them precisely when it reports the syntax error.
 *
 * What is syntactically HealCore but still refused (forbidden names, dunder attributes, imports
 * outside the allowlist, reflective access by computed names) is decided by the gate's visitor
 * from the policy data in healcore/healcore_policy.json (source: healrt/healrt/healcore_policy.json).
 *
 * Layout follows Python: the lexer emits NEWLINE at the end of each logical line (not inside
 * brackets, not for blank or comment-only lines) and INDENT/DEDENT from the leading spaces of each
 * logical line; IndentationTracker does that bookkeeping around the generated lexer.
 */
grammar HealCore;

tokens { INDENT, DEDENT }

@lexer::members {
    private final IndentationTracker indentation = new IndentationTracker(this, super::nextToken);

    @Override
    public Token nextToken() {
        return indentation.nextToken();
    }

    /** Layout problems found while lexing (tabs, inconsistent dedents, nesting too deep). */
    public java.util.List<IndentationTracker.Issue> layoutIssues() {
        return indentation.issues();
    }
}

// ---------------------------------------------------------------- parser: programs

/** A whole heal (or probe): a sequence of statements. */
program
    : (NEWLINE | statement)* EOF
    ;

/** One f-string replacement field, given to the parser wrapped in parentheses as CPython does. */
fieldExpression
    : test NEWLINE* EOF
    ;

statement
    : simpleStatements
    | compoundStatement
    ;

simpleStatements
    : smallStatement (';' smallStatement)* ';'? NEWLINE
    ;

smallStatement
    : expressionStatement
    | passStatement
    | deleteStatement
    | breakStatement
    | continueStatement
    | raiseStatement
    | assertStatement
    | importStatement
    ;

/** Expression statement, assignment (chained, tuple targets), augmented and annotated assignment. */
expressionStatement
    : testlistStarExpr (annotatedAssignment | augmentedAssignment | assignedValue*)
    ;

annotatedAssignment
    : ':' test ('=' testlistStarExpr)?
    ;

augmentedAssignment
    : augmentedOperator testlist
    ;

assignedValue
    : '=' testlistStarExpr
    ;

augmentedOperator
    : '+=' | '-=' | '*=' | '@=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=' | '**=' | '//='
    ;

passStatement     : PASS ;
deleteStatement   : DEL exprlist ;
breakStatement    : BREAK ;
continueStatement : CONTINUE ;
raiseStatement    : RAISE (test (FROM test)?)? ;
assertStatement   : ASSERT test (',' test)? ;

importStatement
    : importName
    | importFrom
    ;

/** import a.b [as c], ... */
importName
    : IMPORT dottedAsName (',' dottedAsName)*
    ;

/** from a.b import c [as d], ...  (absolute only; no star) */
importFrom
    : FROM dottedName IMPORT ( '(' importAsNames ','? ')' | importAsNames )
    ;

importAsNames
    : importAsName (',' importAsName)*
    ;

importAsName
    : NAME (AS NAME)?
    ;

dottedAsName
    : dottedName (AS NAME)?
    ;

dottedName
    : NAME ('.' NAME)*
    ;

// ---------------------------------------------------------------- parser: compound statements

compoundStatement
    : ifStatement
    | whileStatement
    | forStatement
    | tryStatement
    ;

ifStatement
    : IF namedExpressionTest ':' block (ELIF namedExpressionTest ':' block)* (ELSE ':' block)?
    ;

whileStatement
    : WHILE namedExpressionTest ':' block (ELSE ':' block)?
    ;

forStatement
    : FOR exprlist IN testlist ':' block (ELSE ':' block)?
    ;

tryStatement
    : TRY ':' block
      ( exceptClause+ (ELSE ':' block)? (FINALLY ':' block)?
      | FINALLY ':' block
      )
    ;

exceptClause
    : EXCEPT (test (AS NAME)?)? ':' block
    ;

block
    : simpleStatements
    | NEWLINE INDENT statement+ DEDENT
    ;

// ---------------------------------------------------------------- parser: expressions

/** An expression that may be an assignment expression (walrus), where Python allows one. */
namedExpressionTest
    : (NAME ':=')? test
    ;

/** Conditional expression: a if c else b. */
test
    : orTest (IF orTest ELSE test)?
    ;

orTest
    : andTest (OR andTest)*
    ;

andTest
    : notTest (AND notTest)*
    ;

notTest
    : NOT notTest
    | comparison
    ;

comparison
    : expr (comparisonOperator expr)*
    ;

comparisonOperator
    : '<' | '>' | '==' | '>=' | '<=' | '!='
    | IN
    | NOT IN
    | IS
    | IS NOT
    ;

starExpr
    : '*' expr
    ;

expr
    : xorExpr ('|' xorExpr)*
    ;

xorExpr
    : andExpr ('^' andExpr)*
    ;

andExpr
    : shiftExpr ('&' shiftExpr)*
    ;

shiftExpr
    : arithExpr (('<<' | '>>') arithExpr)*
    ;

arithExpr
    : term (('+' | '-') term)*
    ;

term
    : factor (('*' | '@' | '/' | '%' | '//') factor)*
    ;

factor
    : ('+' | '-' | '~') factor
    | power
    ;

power
    : atomExpr ('**' factor)?
    ;

/** A primary followed by calls, subscripts and attribute references. */
atomExpr
    : atom trailer*
    ;

atom
    : OPEN_PAREN parenthesizedElements? CLOSE_PAREN             # parenthesizedAtom
    | OPEN_BRACK listElements? CLOSE_BRACK                      # listAtom
    | OPEN_BRACE dictOrSetElements? CLOSE_BRACE                 # dictOrSetAtom
    | NAME                                                      # nameAtom
    | NUMBER                                                    # numberAtom
    | (STRING | FSTRING)+                                       # stringAtom
    | '...'                                                     # ellipsisAtom
    | NONE                                                      # noneAtom
    | TRUE                                                      # trueAtom
    | FALSE                                                     # falseAtom
    ;

/** A parenthesized expression or a tuple. No generator expressions: they are not HealCore. */
parenthesizedElements
    : (namedExpressionTest | starExpr) (',' (namedExpressionTest | starExpr))* ','?
    ;

listElements
    : (namedExpressionTest | starExpr) comprehensionFor
    | (namedExpressionTest | starExpr) (',' (namedExpressionTest | starExpr))* ','?
    ;

dictOrSetElements
    : dictEntry comprehensionFor
    | dictEntry (',' dictEntry)* ','?
    | (namedExpressionTest | starExpr) comprehensionFor
    | (namedExpressionTest | starExpr) (',' (namedExpressionTest | starExpr))* ','?
    ;

dictEntry
    : test ':' test
    | '**' expr
    ;

comprehensionFor
    : FOR exprlist IN orTest comprehensionIter?
    ;

comprehensionIter
    : comprehensionFor
    | comprehensionIf
    ;

comprehensionIf
    : IF orTest comprehensionIter?
    ;

trailer
    : OPEN_PAREN arguments? CLOSE_PAREN                         # callTrailer
    | OPEN_BRACK subscripts CLOSE_BRACK                         # subscriptTrailer
    | '.' NAME                                                  # attributeTrailer
    ;

/** Call arguments. A bare generator expression argument, f(x for x in y), has no rule. */
arguments
    : argument (',' argument)* ','?
    ;

argument
    : NAME ':=' test                                            # namedArgument
    | NAME '=' test                                             # keywordArgument
    | '**' test                                                 # doubleStarArgument
    | '*' test                                                  # starArgument
    | test                                                      # positionalArgument
    ;

subscripts
    : subscript (',' subscript)* ','?
    ;

subscript
    : test
    | test? ':' test? (':' test?)?
    ;

exprlist
    : (expr | starExpr) (',' (expr | starExpr))* ','?
    ;

testlist
    : test (',' test)* ','?
    ;

testlistStarExpr
    : (test | starExpr) (',' (test | starExpr))* ','?
    ;

// ---------------------------------------------------------------- lexer: keywords

// Keywords of HealCore.
AND      : 'and' ;
AS       : 'as' ;
ASSERT   : 'assert' ;
BREAK    : 'break' ;
CONTINUE : 'continue' ;
DEL      : 'del' ;
ELIF     : 'elif' ;
ELSE     : 'else' ;
EXCEPT   : 'except' ;
FALSE    : 'False' ;
FINALLY  : 'finally' ;
FOR      : 'for' ;
FROM     : 'from' ;
IF       : 'if' ;
IMPORT   : 'import' ;
IN       : 'in' ;
IS       : 'is' ;
NONE     : 'None' ;
NOT      : 'not' ;
OR       : 'or' ;
PASS     : 'pass' ;
RAISE    : 'raise' ;
TRUE     : 'True' ;
TRY      : 'try' ;
WHILE    : 'while' ;

// Python keywords excluded from HealCore: no parser rule uses them. They are lexed so that they
// can never pass as names, and so that the gate can say which excluded construct it met.
ASYNC    : 'async' ;
AWAIT    : 'await' ;
CLASS    : 'class' ;
DEF      : 'def' ;
GLOBAL   : 'global' ;
LAMBDA   : 'lambda' ;
NONLOCAL : 'nonlocal' ;
RETURN   : 'return' ;
WITH     : 'with' ;
YIELD    : 'yield' ;

// ---------------------------------------------------------------- lexer: brackets (layout-relevant)

OPEN_PAREN  : '(' ;
CLOSE_PAREN : ')' ;
OPEN_BRACK  : '[' ;
CLOSE_BRACK : ']' ;
OPEN_BRACE  : '{' ;
CLOSE_BRACE : '}' ;

// ---------------------------------------------------------------- lexer: literals

/** f-strings; the gate re-parses every replacement field with the rule fieldExpression. */
FSTRING
    : FSTRING_PREFIX (SHORT_STRING | LONG_STRING)
    ;

/** str and bytes literals, with prefixes r, u, b, br, rb in any case. */
STRING
    : STRING_PREFIX? (SHORT_STRING | LONG_STRING)
    ;

NUMBER
    : IMAGINARY_NUMBER
    | FLOAT_NUMBER
    | INTEGER
    ;

NAME
    : ID_START ID_CONTINUE*
    ;

// ---------------------------------------------------------------- lexer: layout

NEWLINE
    : '\r'? '\n'
    | '\r'
    ;

/** A backslash at the end of a line joins it with the next one. */
LINE_CONTINUATION
    : '\\' ('\r'? '\n' | '\r') -> skip
    ;

/** Hidden, not skipped: IndentationTracker reads the leading whitespace of each line. */
WHITESPACE
    : [ \t\f]+ -> channel(HIDDEN)
    ;

COMMENT
    : '#' ~[\r\n]* -> skip
    ;

/** Any other character; the parser rejects it where it stands, with its position. */
UNKNOWN_CHARACTER
    : .
    ;

// ---------------------------------------------------------------- lexer: fragments

fragment STRING_PREFIX
    : [rRuUbB]
    | [bB][rR]
    | [rR][bB]
    ;

fragment FSTRING_PREFIX
    : [fF]
    | [fF][rR]
    | [rR][fF]
    ;

fragment SHORT_STRING
    : '\'' (STRING_ESCAPE | ~[\\\r\n'])* '\''
    | '"' (STRING_ESCAPE | ~[\\\r\n"])* '"'
    ;

fragment LONG_STRING
    : '\'\'\'' (STRING_ESCAPE | ~'\\')*? '\'\'\''
    | '"""' (STRING_ESCAPE | ~'\\')*? '"""'
    ;

fragment STRING_ESCAPE
    : '\\' ('\r\n' | .)
    ;

fragment INTEGER
    : DECIMAL_INTEGER
    | '0' [oO] ('_'? [0-7])+
    | '0' [xX] ('_'? [0-9a-fA-F])+
    | '0' [bB] ('_'? [01])+
    ;

fragment DECIMAL_INTEGER
    : [1-9] ('_'? [0-9])*
    | '0' ('_'? '0')*
    ;

fragment DIGIT_PART
    : [0-9] ('_'? [0-9])*
    ;

fragment POINT_FLOAT
    : DIGIT_PART? '.' DIGIT_PART
    | DIGIT_PART '.'
    ;

fragment FLOAT_NUMBER
    : POINT_FLOAT EXPONENT?
    | DIGIT_PART EXPONENT
    ;

fragment EXPONENT
    : [eE] [+-]? DIGIT_PART
    ;

fragment IMAGINARY_NUMBER
    : (FLOAT_NUMBER | DIGIT_PART) [jJ]
    ;

fragment ID_START
    : [_\p{L}\p{Nl}]
    ;

fragment ID_CONTINUE
    : [_\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]
    ;
