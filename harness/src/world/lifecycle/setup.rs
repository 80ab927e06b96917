//! What the scenario's gateway is launched with, as its steps set it before
//! the launch: the document and the files beside it, the credential, the
//! path the API lives under, and the protocol era of its session.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::Context as _;

use crate::{
    client::Era,
    folder::{inside_scenario, ScenarioDir},
    issuer::Issuer,
    placement,
    pool::Wanted,
};

/// The credential the harness stores for every gateway unless a step sets
/// another. Distinctive, so masking checks cannot match by accident, and
/// holding `/`, `+`, `=` and `@`, which percent-encoding changes, so a URL
/// that shows it encoded is caught too. Nothing in it needs a JSON escape:
/// a JSON echo of it is the plain credential, which every gateway must mask.
pub const DEFAULT_CREDENTIAL: &str = "sk/conformance+3f9a=7c1e@x";

/// Written in a document, replaced by the mock upstream's base URL (for
/// documents that point somewhere the harness can watch).
pub const BASE_URL_PLACEHOLDER: &str = "{{base_url}}";

/// The scenario's set-up of its gateway's launch.
pub(crate) struct Setup {
    document: Option<String>,
    /// The document's folder within the scenario's folder (empty: the top).
    document_folder: PathBuf,
    /// The other files of a split document, by their path within the
    /// scenario's folder, already checked to stay inside it.
    files: Vec<(PathBuf, String)>,
    credential: String,
    /// Whether the gateway is told where the credential goes (see [`placement`]).
    hint_credential: bool,
    /// The path the API lives under, if a step said: part of what a
    /// gateway is launched with, so a kept one serves only the same.
    base_path: String,
    era: Era,
    /// The scenario's own authorization server, in place of the run's.
    issuer: Option<Arc<Issuer>>,
}

/// The document as written for a launch.
pub(super) struct Written {
    /// The document's own file, which the gateway is given.
    pub(super) openapi: PathBuf,
    /// Every file of the document, by its path within the scenario's
    /// folder, as the preparation step tells documents apart.
    pub(super) files: Vec<(PathBuf, String)>,
}

impl Setup {
    pub(super) fn new() -> Self {
        Self {
            document: None,
            document_folder: PathBuf::new(),
            files: Vec::new(),
            credential: DEFAULT_CREDENTIAL.to_owned(),
            hint_credential: true,
            base_path: String::new(),
            era: Era::default(),
            issuer: None,
        }
    }

    /// Sets whether the gateway is told where the credential goes.
    pub(super) fn hint_credential(&mut self, hint: bool) {
        self.hint_credential = hint;
    }

    /// Sets the OpenAPI document (JSON or YAML text). `{{base_url}}` in it
    /// becomes the mock upstream's base URL.
    pub(crate) fn set_document(&mut self, text: &str) {
        self.document = Some(text.to_owned());
    }

    /// The document as the scenario wrote it, if it gave one.
    pub(crate) fn document(&self) -> Option<&str> {
        self.document.as_deref()
    }

    /// Puts the document in `folder` (a relative path) of the scenario's
    /// folder, so a file beside it can be outside the document's folder tree.
    pub(crate) fn set_document_folder(&mut self, folder: &str) -> anyhow::Result<()> {
        self.document_folder = inside_scenario(Path::new(""), folder)?;
        Ok(())
    }

    /// Adds a file of a split document at `path`, relative to the document's
    /// folder (`../x.yaml` is allowed while it stays in the scenario's
    /// folder). `{{base_url}}` in it becomes the mock upstream's base URL.
    pub(crate) fn add_file(&mut self, path: &str, text: &str) -> anyhow::Result<()> {
        let path = inside_scenario(&self.document_folder, path)?;
        self.files.push((path, text.to_owned()));
        Ok(())
    }

    /// The text of a file of the split document, by its path from the
    /// document's folder (`paths/pets.yaml`).
    pub(crate) fn file_beside(&self, path: &str) -> Option<&str> {
        let wanted = self.document_folder.join(path);
        let file = self.files.iter().find(|(path, _)| *path == wanted);
        file.map(|(_, text)| text.as_str())
    }

    /// Sets the credential stored for the gateway.
    pub(crate) fn set_credential(&mut self, credential: &str) {
        credential.clone_into(&mut self.credential);
    }

    /// The credential stored for the gateway.
    pub(crate) fn credential(&self) -> &str {
        &self.credential
    }

    /// Puts the API under `path` for the gateway this scenario launches or
    /// takes.
    pub(crate) fn set_base_path(&mut self, path: &str) {
        path.clone_into(&mut self.base_path);
    }

    pub(super) fn base_path(&self) -> &str {
        &self.base_path
    }

    /// Chooses the MCP lifecycle of the session opened at launch.
    pub(crate) fn set_era(&mut self, era: Era) {
        self.era = era;
    }

    pub(crate) fn era(&self) -> &Era {
        &self.era
    }

    /// Has the gateway trust `issuer`, the scenario's own authorization
    /// server, in place of the run's.
    pub(crate) fn set_issuer(&mut self, issuer: Arc<Issuer>) {
        self.issuer = Some(issuer);
    }

    /// The scenario's own authorization server, if it has one.
    pub(crate) fn issuer(&self) -> Option<&Arc<Issuer>> {
        self.issuer.as_ref()
    }

    /// What the scenario asks of its launch so far.
    pub(super) fn wanted(&self) -> Wanted {
        Wanted {
            document: self.document.clone().unwrap_or_default(),
            files: self.files.clone(),
            folder: self.document_folder.clone(),
            credential: self.credential.clone(),
            hint_credential: self.hint_credential,
            base_path: self.base_path.clone(),
            issuer: self
                .issuer
                .as_ref()
                .map(|i| i.url().to_owned())
                .unwrap_or_default(),
        }
    }

    /// The document pointing at the upstream at `base_url`.
    pub(super) fn document_for(&self, base_url: &str) -> anyhow::Result<String> {
        Ok(self
            .document
            .as_deref()
            .context("the scenario gave no OpenAPI document")?
            .replace(BASE_URL_PLACEHOLDER, base_url))
    }

    /// Where the gateway is told the credential goes in `document`, unless
    /// the scenario leaves that to the document (see [`placement`]).
    pub(super) fn credential_in(&self, document: &str) -> Option<String> {
        self.hint_credential
            .then(|| placement::credential_in(document))
    }

    /// Writes `document` and the files beside it into `dir`, each pointing
    /// at the upstream at `base_url`.
    pub(super) fn write(
        &self,
        dir: &ScenarioDir,
        document: &str,
        base_url: &str,
    ) -> anyhow::Result<Written> {
        let extension = if document.trim_start().starts_with('{') {
            "json"
        } else {
            "yaml"
        };
        for (path, text) in &self.files {
            let text = text.replace(BASE_URL_PLACEHOLDER, base_url);
            dir.write(path, &text)?;
        }
        // Not "openapi.*": an error that names the file must not pass for
        // one that names the missing `openapi` field.
        let within = self.document_folder.join(format!("document.{extension}"));
        let openapi = dir.write(&within, document)?;
        let files = self
            .files
            .iter()
            .map(|(path, text)| (path.clone(), text.replace(BASE_URL_PLACEHOLDER, base_url)))
            .chain([(within, document.to_owned())])
            .collect();
        Ok(Written { openapi, files })
    }
}
