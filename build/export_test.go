package build

import "time"

// SetPageSize sets how many events a full change-feed page holds, and
// returns a function that restores it.
func SetPageSize(n int64) (restore func()) {
	old := pageSize
	pageSize = n
	return func() { pageSize = old }
}

// SetRacyWindow sets racyWindow for a test and returns what restores it.
func SetRacyWindow(d time.Duration) (restore func()) {
	old := racyWindow
	racyWindow = d
	return func() { racyWindow = old }
}

// EditDescription is editDescription, for the tests outside the package.
var EditDescription = editDescription
