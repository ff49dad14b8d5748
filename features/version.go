package features

// Version is augur's version, recorded in every dataset and bundle.
const Version = "0.1.0"
