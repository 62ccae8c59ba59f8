import { configure } from '@testing-library/react';

// The component tests run beside the server's on a machine of two cores: a page that renders in
// milliseconds alone can take more than Testing Library's default second to appear then. Waits are for
// something that does happen; the longer limit only matters when the machine is busy.
configure({ asyncUtilTimeout: 5_000 });
