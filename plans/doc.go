// Package plans will hold the SPEC / contract / work-package brief model,
// perimeters and plan checks. Nothing is implemented here yet.
package plans
