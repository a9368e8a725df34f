package io.healbench.agent.service.llm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agents' prompts: versioned resource files ({@code prompts/<version>/<name>.md}) with {@code {{placeholders}}}.
 * A trajectory records the version, so a result always says which prompts produced it. A placeholder without a value
 * is a defect and fails loudly rather than sending a prompt with a hole in it.
 */
public final class Prompts {

    public static final String VERSION = "v1";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z_]+)}}");
    private static final Map<String, String> TEMPLATES = new ConcurrentHashMap<>();

    private Prompts() {
    }

    public static String render(String name, Map<String, String> values) {
        String template = TEMPLATES.computeIfAbsent(name, Prompts::load);
        Matcher matcher = PLACEHOLDER.matcher(template);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String value = values.get(matcher.group(1));
            if (value == null) {
                throw new IllegalStateException("prompt " + name + " needs a value for {{" + matcher.group(1) + "}}");
            }
            matcher.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        matcher.appendTail(out);
        return out.toString().strip();
    }

    public static String render(String name) {
        return render(name, Map.of());
    }

    private static String load(String name) {
        String resource = "prompts/" + VERSION + "/" + name + ".md";
        try (InputStream in = Prompts.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing prompt resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read prompt resource " + resource, e);
        }
    }
}
