//! Who a request comes from: the account of its session cookie (if any), a guest's name, and
//! whether it may act; the extractor every handler takes, below all of them.
//!
//! A session travels in an HttpOnly, SameSite=Lax cookie. A request that carries it and changes
//! something must come from the site's own pages: a browser says where a request comes from
//! (`Sec-Fetch-Site`, `Origin`), and a cross-site one is refused, so another site cannot make a
//! logged-in player's browser move, resign or log out for them.

use crate::accounts::{
    Account, GUEST_COOKIE, GUEST_COOKIE_MAX_AGE_S, SESSION_COOKIE, SessionWatch, guest_name,
    guest_name_of, is_guest_secret, new_guest_secret,
};
use crate::connections::PeerAddr;
use crate::error::ApiError;
use crate::hub::{Credential, Hub, Sitter};
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use std::sync::Arc;

/// The value of the session cookie, if the request has one.
pub(crate) fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    cookie_named(headers, SESSION_COOKIE)
}

/// The value of the cookie `wanted`, if the request has one.
fn cookie_named<'a>(headers: &'a HeaderMap, wanted: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == wanted)
        .map(|(_, value)| value.trim())
}

/// Whether a browser says the request comes from another site: `Sec-Fetch-Site` when it is
/// sent, else an `Origin` whose host is not the request's. A request with neither does not
/// come from a browser page (every current browser sends one of them on a cross-site request
/// that could carry cookies).
pub fn is_cross_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        return !matches!(site.to_str(), Ok("same-origin") | Ok("none"));
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|origin| origin.split_once("://"))
        .map(|(_, host)| host);
    let host = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok());
    match (origin_host, host) {
        (Some(origin_host), Some(host)) => !origin_host.eq_ignore_ascii_case(host),
        _ => true,
    }
}

/// Who a request comes from: the account of its session cookie, if any, and the cookie's
/// value. Extracting it refuses (403) a cross-site request that carries the cookie and would
/// change something.
#[derive(Clone, Debug, Default)]
pub struct Viewer {
    /// The logged-in account.
    pub account: Option<Account>,
    /// The session cookie's value, when there is one.
    pub(crate) session: Option<String>,
    /// When the logged-in session expires, unix milliseconds.
    session_expires: u64,
    /// A guest's browser secret (the guest cookie), which names them.
    guest: Option<String>,
    /// Whether the request came over HTTPS (a trusted proxy says so): cookies set for it are
    /// `Secure`.
    over_https: bool,
}

impl Viewer {
    /// What the request presents to act for a seat, with a seat token if it has one.
    pub fn credential<'a>(&'a self, token: Option<&'a str>) -> Credential<'a> {
        Credential {
            token,
            account: self.account.as_ref().map(|a| a.id.as_str()),
        }
    }

    /// Who takes a seat for this request: the account, or a guest under their browser's name
    /// (or a new name, for a client without the guest cookie).
    pub fn sitter(&self) -> Sitter {
        match &self.account {
            Some(account) => Sitter {
                account: Some(account.id.clone()),
                name: account.username.clone(),
            },
            None => Sitter {
                account: None,
                name: self.guest.as_deref().map_or_else(guest_name, guest_name_of),
            },
        }
    }

    /// Who takes a seat, and for a guest whose browser has no name yet, the cookie that gives
    /// it the one it sits under: the next game is played under the same name.
    pub fn sitter_with_cookie(&self) -> Result<(Sitter, Option<HeaderValue>), ApiError> {
        if self.account.is_some() || self.guest.is_some() {
            return Ok((self.sitter(), None));
        }
        let secret = new_guest_secret();
        let cookie = HeaderValue::from_str(&format!(
            "{GUEST_COOKIE}={secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age={GUEST_COOKIE_MAX_AGE_S}{}",
            if self.over_https { "; Secure" } else { "" }
        ))
        .map_err(|e| ApiError::internal(format!("cookie: {e}")))?;
        Ok((
            Sitter {
                account: None,
                name: guest_name_of(&secret),
            },
            Some(cookie),
        ))
    }

    /// The viewer of a WebSocket upgrade: its cookie counts only when the page that opens the
    /// socket is the site's own (a cross-site page gets a spectator's socket).
    pub async fn of_socket(hub: &Hub, headers: &HeaderMap) -> Result<Viewer, ApiError> {
        if is_cross_site(headers) {
            return Ok(Viewer::default());
        }
        Viewer::of_headers(hub, headers).await
    }

    async fn of_headers(hub: &Hub, headers: &HeaderMap) -> Result<Viewer, ApiError> {
        let guest = cookie_named(headers, GUEST_COOKIE)
            .filter(|value| is_guest_secret(value))
            .map(str::to_string);
        let Some(token) = session_cookie(headers) else {
            return Ok(Viewer {
                guest,
                ..Viewer::default()
            });
        };
        let session = hub.accounts().session_until(token, hub.now()).await?;
        let session_expires = session.as_ref().map_or(0, |(_, expires)| *expires);
        Ok(Viewer {
            account: session.map(|(account, _)| account),
            session: Some(token.to_string()),
            session_expires,
            guest,
            over_https: false,
        })
    }

    /// A watch on the end of the viewer's session, for a socket or stream it opens: the
    /// socket closes when the session ends, wherever it is ended. None for a guest.
    pub fn session_watch(&self, hub: &Hub) -> Option<SessionWatch> {
        let account = self.account.as_ref()?;
        let token = self.session.as_deref()?;
        Some(
            hub.accounts()
                .watch_session(token, account, self.session_expires),
        )
    }
}

impl FromRequestParts<Arc<Hub>> for Viewer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, hub: &Arc<Hub>) -> Result<Viewer, ApiError> {
        let changes = !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS);
        if changes && session_cookie(&parts.headers).is_some() && is_cross_site(&parts.headers) {
            return Err(ApiError::forbidden(
                "a request from another site cannot act for a logged-in player",
            )
            .code("request.cross-site"));
        }
        let mut viewer = Viewer::of_headers(hub, &parts.headers).await?;
        if let Some(ConnectInfo(PeerAddr(peer))) = parts.extensions.get::<ConnectInfo<PeerAddr>>() {
            viewer.over_https = over_https(hub, *peer, &parts.headers);
        }
        Ok(viewer)
    }
}

/// The address a request comes from, as [`ConnectionLimits::client_address`] reads it (the
/// peer's, or behind a trusted proxy the address the proxy forwards): what the per-address
/// limits count.
///
/// [`ConnectionLimits::client_address`]: crate::connections::ConnectionLimits::client_address
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddress(pub std::net::IpAddr);

impl FromRequestParts<Arc<Hub>> for ClientAddress {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        hub: &Arc<Hub>,
    ) -> Result<ClientAddress, ApiError> {
        let Some(ConnectInfo(PeerAddr(peer))) = parts.extensions.get::<ConnectInfo<PeerAddr>>()
        else {
            return Err(ApiError::internal("the connection's address is unknown"));
        };
        Ok(ClientAddress(
            hub.settings()
                .connections
                .client_address(*peer, &parts.headers),
        ))
    }
}

/// Whether the client reached the server over HTTPS (through a trusted proxy that says so):
/// the cookie is then marked `Secure`.
pub(crate) fn over_https(hub: &Hub, peer: std::net::SocketAddr, headers: &HeaderMap) -> bool {
    hub.settings().connections.is_proxy(peer.ip())
        && headers
            .get("x-forwarded-proto")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|proto| proto.eq_ignore_ascii_case("https"))
}

/// The logged-in account of a request, or 403 saying that the action needs one.
pub(crate) fn logged_in_account<'a>(
    viewer: &'a Viewer,
    action: &str,
) -> Result<&'a Account, ApiError> {
    viewer.account.as_ref().ok_or_else(|| {
        ApiError::forbidden(format!("log in to {action}"))
            .code("login.needed")
            .param("action", action)
    })
}

pub(crate) async fn account_named(hub: &Hub, name: &str) -> Result<Account, ApiError> {
    hub.accounts().by_name(name).await?.ok_or_else(|| {
        ApiError::not_found(format!("no player is called {name:?}"))
            .code("player.unknown")
            .param("name", name)
    })
}

/// The viewer, if an administrator; else 403.
pub(crate) fn administrator(viewer: &Viewer) -> Result<&Account, ApiError> {
    let me = logged_in_account(viewer, "use the administrators' tools")?;
    if !me.admin {
        return Err(ApiError::forbidden("only administrators may do this").code("admin.only"));
    }
    Ok(me)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn cross_site_requests_are_told_apart() {
        assert!(!is_cross_site(&headers(&[])));
        assert!(!is_cross_site(&headers(&[(
            "sec-fetch-site",
            "same-origin"
        )])));
        assert!(is_cross_site(&headers(&[("sec-fetch-site", "cross-site")])));
        assert!(is_cross_site(&headers(&[("sec-fetch-site", "same-site")])));
        assert!(!is_cross_site(&headers(&[
            ("origin", "https://play.example"),
            ("host", "play.example")
        ])));
        assert!(is_cross_site(&headers(&[
            ("origin", "https://evil.example"),
            ("host", "play.example")
        ])));
        assert!(is_cross_site(&headers(&[
            ("origin", "null"),
            ("host", "play.example")
        ])));
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let map = headers(&[("cookie", "theme=dark; tsubame_session=abc ; x=1")]);
        assert_eq!(session_cookie(&map), Some("abc"));
        assert_eq!(session_cookie(&headers(&[("cookie", "theme=dark")])), None);
    }
}
