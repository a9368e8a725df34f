package io.healbench.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** Real tokens from the test Keycloak, and gRPC stubs of the bench-service under test that carry them. */
final class BenchTestClients implements AutoCloseable {

    static final int PORT = 18104;

    private final HttpClient http = HttpClient.newHttpClient();
    private final ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", PORT).usePlaintext().build();

    /** An access token by the password grant of the public client healbench-cli. */
    String token(String realm, String user) {
        return token(realm, user, "healbench-cli");
    }

    /** An access token by the password grant of a public client of the realm. */
    String token(String realm, String user, String client) {
        String form = "grant_type=password&client_id=" + encode(client) + "&username=" + encode(user)
                + "&password=" + encode(user + "-test-pw");
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(KeycloakTestResource.issuer(realm) + "/protocol/openid-connect/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("token request for " + user + " failed: " + response.body());
            }
            JsonNode body = new ObjectMapper().readTree(response.body());
            return body.get("access_token").asText();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    BenchServiceGrpc.BenchServiceBlockingStub as(String realm, String user) {
        return withBearer(token(realm, user));
    }

    BenchServiceGrpc.BenchServiceBlockingStub withBearer(String token) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return anonymous().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }

    BenchServiceGrpc.BenchServiceBlockingStub anonymous() {
        return BenchServiceGrpc.newBlockingStub(channel);
    }

    HttpResponse<String> restGet(String path, String token) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORT + path)).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        channel.shutdownNow();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
