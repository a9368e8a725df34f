package io.healbench.standalone;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

/** A stand-in OTLP/HTTP collector for the ITs: keeps every span the services export to {@code /v1/traces}. */
final class OtlpTraceReceiver implements AutoCloseable {

    /** One exported span: the service that made it, its trace and its own id, its attributes, the traces it links to. */
    record ReceivedSpan(String service, String traceId, String spanId, String name, Map<String, String> attributes,
            List<String> linkedTraceIds) {}

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    private OtlpTraceReceiver(HttpServer server) {
        this.server = server;
    }

    static OtlpTraceReceiver start() throws IOException {
        OtlpTraceReceiver receiver = new OtlpTraceReceiver(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
        receiver.server.createContext("/v1/traces", receiver::receive);
        receiver.server.start();
        return receiver;
    }

    /** What the services are given as {@code healbench.otlp.endpoint}. */
    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            InputStream body = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            for (ResourceSpans resource : ExportTraceServiceRequest.parseFrom(body).getResourceSpansList()) {
                String service = attributes(resource.getResource().getAttributesList()).getOrDefault("service.name", "");
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    scope.getSpansList().forEach(span -> spans.add(new ReceivedSpan(service, hex(span.getTraceId()),
                            hex(span.getSpanId()), span.getName(), attributes(span.getAttributesList()),
                            span.getLinksList().stream().map(link -> hex(link.getTraceId())).toList())));
                }
            }
            // All accepted: the answer is an ExportTraceServiceResponse without fields, whose encoding is no bytes.
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
        }
    }

    /** String-valued attributes as text; the others as protobuf's text form, enough to read them in a failure. */
    private static Map<String, String> attributes(List<KeyValue> attributes) {
        return attributes.stream().collect(Collectors.toMap(KeyValue::getKey,
                a -> a.getValue().hasStringValue() ? a.getValue().getStringValue() : a.getValue().toString().trim(), (a, b) -> b));
    }

    private static String hex(ByteString id) {
        return HexFormat.of().formatHex(id.toByteArray());
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
