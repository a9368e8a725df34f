package io.healbench.cli;

import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.InstanceCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Which instances a run runs: {@code --instances}, narrowed by {@code --subject} and {@code --tier}, then at most
 * {@code --limit} of them (a sample fixed by {@code --seed}), chosen from the local dataset before anything starts.
 *
 * @param arguments   the command line with the slice resolved to instance ids (none: the server's whole dataset)
 * @param description one line saying which slice runs, for the user
 * @param selected    the ids of the instances the slice runs, as far as the local dataset knows them (empty without one)
 */
public record DatasetSlice(CliArguments arguments, String description, List<String> selected) {

    /**
     * @throws CliArguments.UsageException for an unknown instance id, a filter that matches nothing, or a filter
     *                                     without a local dataset to apply it to
     */
    public static DatasetSlice resolve(CliArguments args, Path datasetDir) {
        if (!Files.isDirectory(datasetDir.resolve("instances"))) {
            if (args.filtered()) {
                throw new CliArguments.UsageException("--subject, --tier and --limit select from the local dataset, and there is none at "
                        + datasetDir + " (set HEALBENCH_HOME to the repository root)");
            }
            return new DatasetSlice(args, "slice: " + (args.instanceIds().isEmpty() ? "every instance of the server's dataset"
                    : "--instances " + String.join(",", args.instanceIds()) + " (" + args.instanceIds().size() + ")"),
                    args.instanceIds());
        }
        InstanceCatalog catalog = InstanceCatalog.load(datasetDir);
        int total = catalog.all().size();
        if (!args.filtered() && args.instanceIds().isEmpty()) {
            return new DatasetSlice(args, "slice: every instance of the dataset (" + total + ")",
                    catalog.all().stream().map(Instance::id).toList());
        }
        InstanceCatalog candidates;
        try {
            candidates = args.instanceIds().isEmpty() ? catalog : catalog.restrictTo(args.instanceIds());
        } catch (IllegalArgumentException e) {
            throw new CliArguments.UsageException("--instances: " + e.getMessage());
        }
        List<Instance> matching = candidates.select(args.subject(), args.tier(), 0, args.seed());
        List<Instance> selected = candidates.select(args.subject(), args.tier(), args.limit(), args.seed());
        String filters = filters(args);
        if (selected.isEmpty()) {
            TreeSet<String> codebases = new TreeSet<>();
            candidates.all().forEach(i -> codebases.add(i.codebase()));
            throw new CliArguments.UsageException("no instance matches " + filters + "; the code bases here are " + String.join(", ", codebases));
        }
        String sampled = selected.size() < matching.size() ? ", a sample of " + selected.size() + " (seed " + args.seed() + ")" : "";
        String description = "slice: " + filters + ": " + matching.size() + " of " + total + " instances" + sampled;
        List<String> ids = selected.stream().map(Instance::id).toList();
        return new DatasetSlice(args.withInstances(ids), description, ids);
    }

    private static String filters(CliArguments args) {
        List<String> parts = new ArrayList<>();
        if (!args.instanceIds().isEmpty()) {
            parts.add("--instances " + (args.instanceIds().size() <= 3 ? String.join(",", args.instanceIds())
                    : "(" + args.instanceIds().size() + " ids)"));
        }
        if (args.subject() != null) {
            parts.add("--subject " + args.subject());
        }
        if (args.tier() != null) {
            parts.add("--tier " + args.tier().label());
        }
        if (args.limit() > 0) {
            parts.add("--limit " + args.limit());
        }
        return String.join(" ", parts);
    }
}
