"""LightDock 0.9.4's command lines over sparkledock: its setup, run and analysis commands
(:mod:`.commands`) and its helper scripts (:mod:`.tools`), on LightDock's file formats
(:mod:`sparkledock.io.lightdock`)."""
