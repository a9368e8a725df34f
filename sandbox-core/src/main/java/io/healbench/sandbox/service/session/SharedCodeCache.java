package io.healbench.sandbox.service.session;

import io.healbench.common.dataset.Instance;
import io.healbench.common.guard.GuardMode;
import io.healbench.common.provenance.Provenance;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.service.HealrtVersion;
import io.healbench.sandbox.service.heal.ProtectedPolicies;
import io.healbench.sandbox.service.model.Variant;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The machine's shared cache of healrt's compiled rewrites (docs/sandbox-isolation.md, "The shared code cache"): one
 * partition per subject and interpreter, read-only to every run. Only the sandbox writes it, by copying in what a
 * trusted run of the pristine subject (a warm-up: no agent, no heal, no probe; a real-bug instance's BUGGY variant, an
 * injected one's REFERENCE) wrote to its private cache. The partition therefore holds rewrites of the pristine subject
 * alone: never a fix patch (reference runs of real bugs publish nothing) and never an injected bug. A real-bug session
 * can read the pristine subject in its own workspace anyway, so it reads the partition itself; for an injected
 * instance's BUGGY session the pristine files its bug changes are the answer, so it reads a {@link #viewWithout view}
 * made at its start without their entries.
 */
@ApplicationScoped
public class SharedCodeCache {

    private static final Logger LOG = Logger.getLogger(SharedCodeCache.class);
    /** healrt's entry file name: its source's sha256, a dash, the key, the suffix (healrt/healrt/codecache.py). */
    private static final Pattern ENTRY = Pattern.compile("([0-9a-f]{64})-[0-9a-f]{64}\\.healrt");
    /** Larger than any rewrite of one source file; a bigger file is no entry healrt wrote. */
    private static final long MAX_ENTRY_BYTES = 64L << 20;
    private static final String WARMED = "warmed";

    private final Path root;
    private final HealrtVersion healrt;
    private final ProtectedPolicies policies;

    public SharedCodeCache(HealrtVersion healrt, SandboxConfig config, ProtectedPolicies policies,
                           @ConfigProperty(name = "healbench.home", defaultValue = ".") String home) {
        Path homeDir = Path.of(home).toAbsolutePath().normalize();
        this.root = config.codeCache().map(homeDir::resolve).orElse(homeDir.resolve(".cache").resolve("healrt-code")).normalize();
        this.healrt = healrt;
        this.policies = policies;
    }

    /** The instance's partition, if it has one: every instance with a variant that is the pristine subject has. */
    public Optional<Path> partition(Instance instance) {
        if (pristineVariant(instance).isEmpty()) {
            return Optional.empty();
        }
        String kind = instance.subject().kind();
        String name = instance.subject().name();
        String subject = (kind.equals(name) ? name : kind + "-" + name) + "-" + instance.subject().version();
        return Optional.of(root.resolve(subject.replaceAll("[^A-Za-z0-9._-]", "_") + "-py" + instance.python()));
    }

    /**
     * The instance's variant that is the subject unpatched, which its warm-up runs: a real bug's BUGGY (only a fix
     * patch), an injected bug's REFERENCE (only a bug patch); none when it has both patches.
     */
    public static Optional<Variant> pristineVariant(Instance instance) {
        if (instance.bugPatch() == null) {
            return Optional.of(Variant.BUGGY);
        }
        return instance.fixPatch() == null ? Optional.of(Variant.REFERENCE) : Optional.empty();
    }

    /**
     * A session's own copy of the partition in {@code view} (to be mounted read-only), with every entry but those
     * rewritten from a source whose sha256 is in {@code withheld}: hard links where the file system allows, else
     * copies. It is fixed when made, so an entry a later warm-up publishes never shows in it.
     */
    public static void viewWithout(Path partition, Set<String> withheld, Path view) throws IOException {
        Files.createDirectories(view);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(partition)) {
            for (Path entry : entries) {
                Matcher name = ENTRY.matcher(entry.getFileName().toString());
                if (!name.matches() || withheld.contains(name.group(1)) || !Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                Path target = view.resolve(entry.getFileName());
                try {
                    Files.createLink(target, entry);
                } catch (IOException | UnsupportedOperationException e) {
                    Files.copy(entry, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /**
     * The warm-up that fills the instance's partition for sessions in this guard mode: the key covers what shapes
     * healrt's rewrites besides the sources (healrt itself, and the guard's formatting rewrite: off, or the policy).
     */
    public String warmUpKey(Instance instance, GuardMode guardMode) {
        String guard = guardMode == GuardMode.OFF ? "off" : policies.mergedJson(instance.policy());
        return Provenance.sha256(partition(instance).orElseThrow() + "\n" + healrt.fingerprint() + "\n" + guard).substring(0, 32);
    }

    /** Whether a warm-up with this key already filled the partition (on this machine, by any sandbox process). */
    public boolean warmed(Instance instance, String key) {
        return partition(instance).map(dir -> Files.exists(dir.resolve(WARMED).resolve(key))).orElse(true);
    }

    /**
     * Copies the entries a trusted run wrote to its private cache into the instance's partition, then records the
     * warm-up. Only regular files named as healrt names its entries are taken; an entry already there is kept (its key
     * is a digest of everything it depends on, so both are the same). Returns how many were added.
     */
    public int publish(Instance instance, String key, Path privateCache) throws IOException {
        Path partition = partition(instance).orElseThrow();
        Files.createDirectories(partition.resolve(WARMED));
        int added = 0;
        if (Files.isDirectory(privateCache, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(privateCache)) {
                for (Path entry : entries) {
                    if (ENTRY.matcher(entry.getFileName().toString()).matches() && Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)
                            && Files.size(entry) <= MAX_ENTRY_BYTES && copyIn(entry, partition.resolve(entry.getFileName()))) {
                        added++;
                    }
                }
            }
        }
        Files.writeString(partition.resolve(WARMED).resolve(key), instance.id() + "\n");
        LOG.infof("shared code cache %s: %d entries added by the warm-up of %s", partition.getFileName(), added, instance.id());
        return added;
    }

    private static boolean copyIn(Path entry, Path target) throws IOException {
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        // Whole under a temporary name, then renamed: a session never reads a partial entry.
        Path temporary = Files.createTempFile(target.getParent(), ".publish-", ".tmp");
        try {
            Files.copy(entry, temporary, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-r--r--"));
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException | FileAlreadyExistsException e) {
                return false;
            }
            return true;
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
