package io.pathfence.web;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import io.pathfence.core.RejectionReason;

import static org.assertj.core.api.Assertions.assertThat;

/** The problem body of a rejection. */
class ProblemResponseTests {

	@Test
	void aLongRequestUriIsCutShortInTheBodySoItStaysInTheResponseBuffer() throws Exception {
		String uri = "/gate/" + "x".repeat(8000);
		MockHttpServletRequest request = new MockHttpServletRequest("GET", uri);
		MockHttpServletResponse response = new MockHttpServletResponse();
		ProblemResponse.write(request, response, "gate", RejectionReason.TIMEOUT, Duration.ofSeconds(1), false);
		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(response.getContentAsByteArray().length).isLessThan(1024);
		assertThat(response.getContentAsString()).contains("\"instance\":\"/gate/xxx");
	}

}
