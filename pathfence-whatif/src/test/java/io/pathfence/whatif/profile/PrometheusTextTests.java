package io.pathfence.whatif.profile;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PrometheusTextTests {

	@Test
	void parsesSamplesWithLabelsEscapesAndSpecialValues() {
		String text = """
				# HELP http_server_requests_seconds
				# TYPE http_server_requests_seconds summary
				http_server_requests_seconds_count{method="GET",uri="/a \\"b\\", c\\\\d",status="200"} 42.0
				process_uptime_seconds 12.5 1700000000000
				jvm_gc_pause_seconds_max{gc="x",} +Inf

				odd{a="1"} NaN
				""";
		List<PrometheusText.Sample> samples = PrometheusText.parse(text);
		assertThat(samples).hasSize(4);
		assertThat(samples.get(0)).isEqualTo(new PrometheusText.Sample("http_server_requests_seconds_count",
				Map.of("method", "GET", "uri", "/a \"b\", c\\d", "status", "200"), 42.0));
		assertThat(samples.get(1)).isEqualTo(new PrometheusText.Sample("process_uptime_seconds", Map.of(), 12.5));
		assertThat(samples.get(2).value()).isInfinite();
		assertThat(samples.get(3).value()).isNaN();
	}

	@Test
	void aLineThatIsNoSampleIsRefusedNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> PrometheusText.parse("ok 1\nbroken{a=\"1\" 2\n"))
			.withMessageContaining("line 2 is not a Prometheus sample")
			.withMessageContaining("broken{a=\"1\" 2");
		assertThatIllegalArgumentException().isThrownBy(() -> PrometheusText.parse("lonely"))
			.withMessageContaining("no value");
		assertThatIllegalArgumentException().isThrownBy(() -> PrometheusText.parse("x{a=1} 2"))
			.withMessageContaining("a label without a quoted value");
		assertThatIllegalArgumentException().isThrownBy(() -> PrometheusText.parse("x 1 2 3"))
			.withMessageContaining("expected a value and an optional timestamp");
	}

	@Test
	void servedCallsLeaveOutTheActuatorsOwnRequests() {
		String text = """
				http_server_requests_seconds_count{status="200",uri="/orders"} 10.0
				http_server_requests_seconds_count{status="503",uri="/orders"} 2.0
				http_server_requests_seconds_count{status="200",uri="/actuator/prometheus"} 7.0
				http_server_requests_seconds_count{status="200",uri="/actuator/health"} 30.0
				http_server_requests_seconds_sum{status="200",uri="/orders"} 1.5
				""";
		assertThat(ServedCalls.in(text)).isEqualTo(12);
	}

	@Test
	void aServiceWithoutTheCounterIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ServedCalls.in("jvm_threads_live_threads 20.0\n"))
			.withMessageContaining("no http_server_requests_seconds_count")
			.withMessageContaining("cannot be counted");
	}

}
