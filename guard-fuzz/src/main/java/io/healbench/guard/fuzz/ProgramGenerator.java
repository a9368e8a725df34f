package io.healbench.guard.fuzz;

import java.util.List;
import java.util.Random;

import io.healbench.guard.fuzz.Injections.Placement;
import io.healbench.guard.fuzz.Injections.Snippet;
import io.healbench.guard.fuzz.Injections.Variant;
import io.healbench.guard.fuzz.ProgramWriter.Plan;
import io.healbench.guard.fuzz.ProgramWriter.Rendered;
import io.healbench.guard.fuzz.ProgramWriter.Slot;
import io.healbench.guard.service.gate.HealCorePolicy;

/**
 * Generates the fuzzer's programs from a seed: half inside HealCore, half outside (an inside
 * program with one excluded construct injected at a slot chosen uniformly among the program's
 * slots of the right kind). Three in four are grammar-based, one in four is a real-shaped heal.
 * The label comes from how the program was built; the gate is never asked.
 */
public final class ProgramGenerator {

    private final long seed;
    private final Vocabulary vocabulary;
    private final Injections injections;
    private final List<Exclusion> classes;

    public ProgramGenerator(HealCorePolicy policy, long seed) {
        this.seed = seed;
        this.vocabulary = new Vocabulary(policy);
        this.injections = new Injections(vocabulary);
        this.classes = injections.classes();
    }

    /** The exclusion classes generated under this policy. */
    public List<Exclusion> classes() {
        return classes;
    }

    /** The program at this index of the run; the same seed and index give the same program. */
    public FuzzProgram generate(int index) {
        Random choice = new Random(mix(seed, index));
        boolean inside = choice.nextBoolean();
        boolean heal = choice.nextInt(4) == 0;
        boolean crlf = choice.nextInt(20) == 0;
        String origin = heal ? "heal" : "grammar";
        if (inside) {
            String text = build(heal, choice.nextLong(), new ProgramWriter(null, null, vocabulary));
            return new FuzzProgram(index, ProgramWriter.render(text, crlf).code(), null, origin, null, null, null);
        }
        Exclusion exclusion = classes.get(choice.nextInt(classes.size()));
        List<Variant> variants = injections.variants(exclusion);
        Variant variant = variants.get(choice.nextInt(variants.size()));
        long injectionSeed = choice.nextLong();
        for (int attempt = 0; attempt < 1_000; attempt++) {
            long bodySeed = choice.nextLong();
            ProgramWriter counter = new ProgramWriter(null, null, vocabulary);
            build(heal, bodySeed, counter);
            Plan plan = plan(variant, counter, choice);
            if (plan == null) {
                continue; // no slot of the needed kind in this program (e.g. no atom): draw another
            }
            String[] mention = new String[1];
            boolean smuggle = variant.placement() == Placement.ATOM && choice.nextInt(4) == 0;
            Plan recording = new Plan(plan.slot(), plan.index(), env -> {
                Snippet snippet = smuggle ? inFString(variant, env) : variant.make().apply(env);
                mention[0] = snippet.mention();
                return snippet.text();
            });
            ProgramWriter injector = new ProgramWriter(recording, new Random(injectionSeed), vocabulary);
            String text = build(heal, bodySeed, injector);
            if (!injector.injected()) {
                throw new IllegalStateException("slot " + plan + " vanished in the injection pass of program " + index);
            }
            Rendered rendered = ProgramWriter.render(text, crlf);
            return new FuzzProgram(index, rendered.code(), exclusion, origin, rendered.construct(), rendered.region(),
                    mention[0]);
        }
        throw new IllegalStateException("no program of seed " + seed + " offers a slot for " + exclusion);
    }

    /**
     * The atom smuggled into a new f-string: as a replacement field, with a conversion and a
     * format spec, or as a field nested in another field's format spec.
     */
    private static Snippet inFString(Variant variant, SnippetEnv env) {
        if (env.ctx().quotes().isEmpty() || env.ctx().fieldDepth() >= 2) {
            return variant.make().apply(env); // no quote left for one more f-string here
        }
        char quote = env.ctx().quotes().charAt(env.random().nextInt(env.ctx().quotes().length()));
        Snippet inner = variant.make().apply(env.inField(quote));
        String field = GrammarPrograms.fieldExpression(inner.text());
        String body = switch (env.random().nextInt(3)) {
            case 0 -> "{" + field + "}";
            case 1 -> "text {" + field + "!r:>10} more";
            default -> "{" + env.name() + ":{" + field + "}}";
        };
        return new Snippet("f" + quote + body + quote, inner.mention());
    }

    private String build(boolean heal, long bodySeed, ProgramWriter writer) {
        Random random = new Random(bodySeed);
        return heal ? new RealHeals(random, vocabulary, writer).heal()
                : new GrammarPrograms(random, vocabulary, writer).program();
    }

    /** A slot for the variant, uniform over the counted slots it can stand in; null if there is none. */
    private static Plan plan(Variant variant, ProgramWriter counted, Random choice) {
        int lines = counted.count(Slot.LINE);
        int smalls = counted.count(Slot.SMALL);
        int atoms = counted.count(Slot.ATOM);
        return switch (variant.placement()) {
            case ATOM -> atoms == 0 ? null : new Plan(Slot.ATOM, choice.nextInt(atoms), null);
            case COMPOUND -> new Plan(Slot.LINE, choice.nextInt(lines), null);
            case SIMPLE -> {
                int at = choice.nextInt(lines + smalls);
                yield at < lines ? new Plan(Slot.LINE, at, null) : new Plan(Slot.SMALL, at - lines, null);
            }
        };
    }

    /** A well-spread seed for one program of the run (SplitMix64's finalizer). */
    private static long mix(long seed, int index) {
        long z = seed + 0x9E3779B97F4A7C15L * (index + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
