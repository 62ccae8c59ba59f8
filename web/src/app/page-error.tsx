import { useEffect } from 'react';
import { Link, useRouteError } from 'react-router';
import { Button } from '../components/button.tsx';
import '../components/work-access-notice.css';

/**
 * Shown in place of a page that failed while rendering: the layout around it (header, navigation) stays,
 * so the user can reload, go elsewhere or report it, instead of a blank screen with the router's
 * developer message. The error itself goes to the console for the report.
 */
export function PageError() {
  const error = useRouteError();
  useEffect(() => {
    console.error('page failed to render', error);
  }, [error]);
  return (
    <section className="container page">
      <div className="card work-access" role="alert">
        <h1 className="work-access__title">This page could not be shown</h1>
        <p>
          Something went wrong while showing this page. Nothing you saved was lost. Reload the page to try
          again; if it keeps happening, tell us through Support what you were doing.
        </p>
        <div className="work-access__actions">
          <Button onClick={() => window.location.reload()}>Reload the page</Button>
          <Link className="btn btn-secondary" to="/">
            Go to the start page
          </Link>
        </div>
      </div>
    </section>
  );
}

/** Every page of the route map gets PageError as its error element, inside its layout. */
export function withPageErrors<T extends { children?: T[]; errorElement?: React.ReactNode }>(
  routes: T[],
): T[] {
  return routes.map((route) =>
    route.children
      ? { ...route, children: withPageErrors(route.children) }
      : { errorElement: <PageError />, ...route },
  );
}
