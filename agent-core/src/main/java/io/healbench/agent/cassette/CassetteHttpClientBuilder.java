package io.healbench.agent.cassette;

import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.jdk.JdkHttpClientBuilder;
import java.time.Duration;
import java.util.Objects;

/**
 * Puts a {@link Cassette} between a LangChain4j model and the network: pass it to the model builder's
 * {@code httpClientBuilder(...)}. The requests that do reach the network go through LangChain4j's JDK client, which
 * gets the timeouts the model sets here.
 */
public final class CassetteHttpClientBuilder implements HttpClientBuilder {

    private final Cassette cassette;
    private final JdkHttpClientBuilder network = new JdkHttpClientBuilder();

    public CassetteHttpClientBuilder(Cassette cassette) {
        this.cassette = Objects.requireNonNull(cassette, "cassette");
    }

    @Override
    public Duration connectTimeout() {
        return network.connectTimeout();
    }

    @Override
    public CassetteHttpClientBuilder connectTimeout(Duration timeout) {
        network.connectTimeout(timeout);
        return this;
    }

    @Override
    public Duration readTimeout() {
        return network.readTimeout();
    }

    @Override
    public CassetteHttpClientBuilder readTimeout(Duration timeout) {
        network.readTimeout(timeout);
        return this;
    }

    @Override
    public HttpClient build() {
        // a replaying cassette gets no network client at all, so it cannot reach the network by mistake
        return new CassetteHttpClient(cassette, cassette.mode() == CassetteMode.REPLAY ? null : network.build());
    }
}
