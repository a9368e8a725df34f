package io.healbench.standalone;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The package structure of every module's main code. This module depends on all of them, so its test classpath holds
 * them all: the contracts, the shared libraries, the four services' cores and the cli.
 */
@AnalyzeClasses(packages = "io.healbench",
        importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureTest.MainCodeWeWrote.class})
class ArchitectureTest {

    /**
     * Leaves out what is not our main code: test jars (analysis's is on this classpath) and the classes protoc
     * generates, which depend on nothing of ours.
     */
    static final class MainCodeWeWrote implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar") && !location.contains("/io/healbench/proto/");
        }
    }

    /**
     * Each package is a slice of its own (the capture takes the whole name below io.healbench), so a cycle between two
     * packages of one service fails this as much as one between modules. When there are several unrelated cycles,
     * ArchUnit 1.5.0 may name only one of them: run it again after breaking that one.
     */
    @ArchTest
    static final ArchRule noPackageCycles = slices().matching("io.healbench.(**)").should().beFreeOfCycles();

    /** The domain code is transport-free: the grpc and messaging packages at the edge map protos to service types. */
    @ArchTest
    static final ArchRule serviceCodeDoesNotKnowTheTransport = noClasses().that().resideInAPackage("io.healbench..service..")
            .should().dependOnClassesThat().resideInAnyPackage("io.grpc..", "io.healbench.proto..", "io.quarkus.grpc..");
}
