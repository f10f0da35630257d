//go:build race

package count3

// underRace: the tests run under the race detector (oracleTrials).
const underRace = true
