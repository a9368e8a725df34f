package io.healbench.bench.repository;

import io.healbench.common.guard.GuardMode;
import io.healbench.common.outcome.ExitCause;
import io.healbench.common.outcome.FailureClass;
import io.healbench.common.wire.WireNames;
import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;

/**
 * The domain enums stored in their lower-case wire names: the spelling the reports, the queries in docs/runs.md and the
 * rows written before the columns were typed all use. A word the enum does not know fails the read, naming it.
 */
public final class WireNameColumns {

    private WireNameColumns() {}

    abstract static class WireNameColumn<E extends Enum<E>> implements AttributeConverter<E, String> {

        private final Class<E> type;

        WireNameColumn(Class<E> type) {
            this.type = type;
        }

        @Override
        public String convertToDatabaseColumn(E value) {
            return value == null ? null : WireNames.of(value);
        }

        @Override
        public E convertToEntityAttribute(String column) {
            return column == null || column.isEmpty() ? null : WireNames.parse(type, type.getSimpleName(), column);
        }
    }

    @Converter
    public static class ExitCauseColumn extends WireNameColumn<ExitCause> {
        public ExitCauseColumn() {
            super(ExitCause.class);
        }
    }

    @Converter
    public static class FailureClassColumn extends WireNameColumn<FailureClass> {
        public FailureClassColumn() {
            super(FailureClass.class);
        }
    }

    @Converter
    public static class GuardModeColumn extends WireNameColumn<GuardMode> {
        public GuardModeColumn() {
            super(GuardMode.class);
        }
    }
}
