package checks

// SharedPlanner exposes sharedPlanner to the tests that check every
// registered check's planner.
var SharedPlanner = sharedPlanner
