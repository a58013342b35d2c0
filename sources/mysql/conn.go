package mysql

import (
	"bufio"
	"context"
	"database/sql/driver"
	"fmt"
	"net"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/reconcile-dev/reconcile/sources"
)

// myDial connects as the driver would, with a 256 KiB read buffer in front
// of the connection: the driver reads at most 4 KiB at a time, one system
// call each, which a long result pays for on every few dozen rows.
func myDial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetKeepAlive(true)
	}
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, 256<<10)}, nil
}

// bufferedConn is a net.Conn whose reads go through a buffer.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// myConnector is the driver's connector for cfg, dialling through myDial.
func myConnector(cfg *gomysql.Config) (driver.Connector, error) {
	if cfg.DialFunc == nil {
		cfg.DialFunc = myDial
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sources.ErrInvalidLocation, err)
	}
	return connector, nil
}
