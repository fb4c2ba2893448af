package io.pathfence.sct.cli;

import io.pathfence.sct.RequestRecord;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads request records: a header naming at least the columns {@code path}, {@code arrival_ms} and
 * {@code departure_ms} (any order, other columns ignored), then one request a row, sorted by arrival. Times are
 * milliseconds on any fixed origin, fractions allowed, never negative. Rows are numbered as lines, the header being
 * row 1; blank lines are skipped. Fields are split on commas; a field may be wrapped in double quotes.
 */
final class RecordsCsv {

    static final String PATH = "path";
    static final String ARRIVAL = "arrival_ms";
    static final String DEPARTURE = "departure_ms";

    private RecordsCsv() {
    }

    static List<RequestRecord> read(BufferedReader in) throws IOException, BadInputException {
        String header = in.readLine();
        int row = 1;
        while (header != null && header.isBlank()) {
            header = in.readLine();
            row++;
        }
        if (header == null) {
            throw new BadInputException("empty file: expected the header " + PATH + "," + ARRIVAL + "," + DEPARTURE);
        }
        if (header.startsWith("\uFEFF")) {
            header = header.substring(1);
        }
        String[] names = split(header);
        int pathAt = indexOf(names, PATH, row);
        int arrivalAt = indexOf(names, ARRIVAL, row);
        int departureAt = indexOf(names, DEPARTURE, row);
        int needed = Math.max(pathAt, Math.max(arrivalAt, departureAt)) + 1;

        List<RequestRecord> records = new ArrayList<>();
        double previousArrival = Double.NEGATIVE_INFINITY;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            row++;
            if (line.isBlank()) {
                continue;
            }
            String[] fields = split(line);
            if (fields.length < needed) {
                String missing = DEPARTURE;
                int firstMissing = Integer.MAX_VALUE;
                for (int k = 0; k < 3; k++) {
                    int at = k == 0 ? pathAt : k == 1 ? arrivalAt : departureAt;
                    if (at >= fields.length && at < firstMissing) {
                        firstMissing = at;
                        missing = k == 0 ? PATH : k == 1 ? ARRIVAL : DEPARTURE;
                    }
                }
                throw BadInputException.at(row, missing, "missing value");
            }
            String path = fields[pathAt];
            if (path.isEmpty()) {
                throw BadInputException.at(row, PATH, "empty");
            }
            double arrival = time(fields[arrivalAt], row, ARRIVAL);
            double departure = time(fields[departureAt], row, DEPARTURE);
            if (arrival < previousArrival) {
                throw BadInputException.at(row, ARRIVAL, "arrival " + fields[arrivalAt]
                        + " is before the previous row's; rows must be sorted by arrival");
            }
            if (departure < arrival) {
                throw BadInputException.at(row, DEPARTURE, "departure " + fields[departureAt]
                        + " is before arrival " + fields[arrivalAt]);
            }
            previousArrival = arrival;
            records.add(new RequestRecord(path, nanos(arrival), nanos(departure)));
        }
        if (records.isEmpty()) {
            throw BadInputException.at(row + 1, PATH, "no records after the header");
        }
        return records;
    }

    private static int indexOf(String[] names, String wanted, int row) throws BadInputException {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(wanted)) {
                return i;
            }
        }
        throw BadInputException.at(row, wanted, "missing from the header (expected " + PATH + "," + ARRIVAL + ","
                + DEPARTURE + ")");
    }

    private static double time(String field, int row, String column) throws BadInputException {
        if (field.isEmpty()) {
            throw BadInputException.at(row, column, "missing value");
        }
        double value;
        try {
            value = Double.parseDouble(field);
        } catch (NumberFormatException e) {
            throw BadInputException.at(row, column, "not a number: '" + field + "'");
        }
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw BadInputException.at(row, column, "not a finite number: '" + field + "'");
        }
        if (value < 0) {
            throw BadInputException.at(row, column, "negative time " + field);
        }
        if (value > 9.2e12) {
            throw BadInputException.at(row, column, "time " + field + " ms is too large");
        }
        return value;
    }

    private static long nanos(double millis) {
        return Math.round(millis * 1e6);
    }

    private static String[] split(String line) {
        String[] fields = line.split(",", -1);
        for (int i = 0; i < fields.length; i++) {
            String f = fields[i].strip();
            if (f.length() >= 2 && f.startsWith("\"") && f.endsWith("\"")) {
                f = f.substring(1, f.length() - 1);
            }
            fields[i] = f;
        }
        return fields;
    }
}
