package io.healbench.agent.cassette;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** Opening cassette files: the modes by name, missing and corrupt files, and appending to what is there. */
class CassetteFileTest {

    private static final String GOOD_LINE = "{\"key\":\"" + "ab".repeat(32) + "\",\"seq\":0,\"method\":\"POST\","
            + "\"url\":\"http://h/v1/chat/completions\",\"request\":\"{}\",\"status\":200,"
            + "\"content_type\":\"application/json\",\"response\":\"{}\"}";

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"off, OFF", "record, RECORD", "replay, REPLAY", "record-missing, RECORD_MISSING"})
    void modesParseFromTheirNames(String text, CassetteMode mode) {
        assertEquals(mode, CassetteMode.parse(text));
        assertEquals(text, mode.toString());
    }

    @ParameterizedTest
    @CsvSource({"REPLAY", "record_missing", "playback", "''"})
    void anUnknownModeIsRefusedListingTheKnownOnes(String text) {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> CassetteMode.parse(text));

        assertTrue(error.getMessage().contains("'" + text + "'"), error.getMessage());
        assertTrue(error.getMessage().contains("off, record, replay or record-missing"), error.getMessage());
    }

    @Test
    void replayNeedsTheFile() {
        Path file = dir.resolve("absent.jsonl");

        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> Cassette.open(file, CassetteMode.REPLAY));

        assertTrue(error.getMessage().contains(file + ": the file does not exist"), error.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            not JSON          | {"key":                                      | is not JSON
            not an object     | [1, 2]                                       | is not a JSON object
            key missing       | {"seq":1}                                    | 'key' must be a string
            key not a sha256  | {"key":"abc"}                                | 'key' must be 64 lower-case hex digits
            """)
    void aCorruptLineIsNamedByFileAndNumber(String name, String line, String expected) throws IOException {
        Path file = dir.resolve("corrupt.jsonl");
        Files.writeString(file, GOOD_LINE + "\n\n" + line + "\n");

        for (CassetteMode mode : List.of(CassetteMode.REPLAY, CassetteMode.RECORD_MISSING)) {
            IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> Cassette.open(file, mode));

            assertTrue(error.getMessage().contains(file + " line 3"), error.getMessage());
            assertTrue(error.getMessage().contains(expected), error.getMessage());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            seq not a number     | "seq":0,               | "seq":"0",              | 'seq' must be an integer
            status out of range  | "status":200,          | "status":42,            | 'status' 42 is no HTTP status
            content type numeric | "content_type":"application/json" | "content_type":7 | 'content_type' must be a string or null
            response missing     | ,"response":"{}"       | ``                      | 'response' must be a string
            """)
    void aLineWithABadFieldIsNamedByFileAndNumber(String name, String field, String broken, String expected) throws IOException {
        Path file = dir.resolve("field.jsonl");
        Files.writeString(file, GOOD_LINE.replace(field, broken) + "\n");

        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> Cassette.open(file, CassetteMode.REPLAY));

        assertTrue(error.getMessage().contains(file + " line 1: " + expected), error.getMessage());
    }

    @Test
    void aNullContentTypeIsAccepted() throws IOException {
        Path file = dir.resolve("error.jsonl");
        Files.writeString(file, GOOD_LINE.replace("\"application/json\"", "null").replace("200", "500"));

        try (Cassette cassette = Cassette.open(file, CassetteMode.REPLAY)) {
            assertEquals(CassetteMode.REPLAY, cassette.mode());
        }
    }

    @Test
    void recordingModesCreateTheParentDirectories() {
        Path file = dir.resolve("a/b/c.jsonl");

        Cassette.open(file, CassetteMode.RECORD_MISSING).close();

        assertTrue(Files.isRegularFile(file));
    }

    @Test
    void recordMissingAppendsOnANewLineWhenTheFileLacksItsLastLineBreak() throws IOException {
        Path file = dir.resolve("edited.jsonl");
        Files.writeString(file, GOOD_LINE);

        try (ChatCompletionsServer server = new ChatCompletionsServer();
                Cassette cassette = Cassette.open(file, CassetteMode.RECORD_MISSING)) {
            server.model(cassette).chat("hello");
        }

        List<RecordedExchange> exchanges = CassetteFormat.parse(file, Files.readString(file));
        assertEquals(2, exchanges.size());
        assertEquals(1, exchanges.get(1).seq());
    }

    @ParameterizedTest
    @EnumSource(CassetteMode.class)
    void closingTwiceIsHarmless(CassetteMode mode) throws IOException {
        Path file = dir.resolve("twice.jsonl");
        Files.writeString(file, GOOD_LINE + "\n");
        Cassette cassette = Cassette.open(file, mode);

        cassette.close();
        cassette.close();
    }
}
